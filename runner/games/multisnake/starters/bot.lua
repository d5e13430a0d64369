-- The first free tile beside the head (up, right, down, left), else up.
local w, h, _, m = io.read("n", "n", "n", "n", "n")
local me = string.char(64 + m)
local moves = { { "^", 0, -1 }, { ">", 1, 0 }, { "v", 0, 1 }, { "<", -1, 0 } }
while true do
  local rows = {}
  for y = 1, h do
    rows[y] = io.read("l")
    while rows[y] == "" do rows[y] = io.read("l") end
    if rows[y] == nil then return end
  end
  local hx, hy = 1, 1
  for y = 1, h do
    local x = rows[y]:find(me, 1, true)
    if x then hx, hy = x, y end
  end
  local answer = "^"
  for _, move in ipairs(moves) do
    local x, y = (hx - 1 + move[2]) % w + 1, (hy - 1 + move[3]) % h + 1
    local tile = rows[y]:sub(x, x)
    if tile == "." or tile == "+" then answer = move[1] break end
  end
  io.write(answer, "\n")
  io.flush()
end
