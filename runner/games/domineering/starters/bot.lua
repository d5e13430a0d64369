-- The first legal move: the first domino that fits (row-major), else the bomb on the first square
-- no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start).
local o = io.read("n")
local b = {}
for i = 0, 168 do b[i] = io.read("n") end
local bombs = io.read("n")
local function at(r, c) if r < 0 or r > 12 or c < 0 or c > 12 then return -1 end return b[r * 13 + c] end
local function first(r, c, dr, dc)
  local n = 0
  while at(r - (n + 1) * dr, c - (n + 1) * dc) == at(r, c) do n = n + 1 end
  return n % 2 == 0
end
local dr, dc = 1, 0
if o == 1 then dr, dc = 0, 1 end
for r = 0, 12 do for c = 0, 12 do
  if at(r, c) == 0 and at(r + dr, c + dc) == 0 then print(string.format("1 %d %d", r, c)) return end
end end
if bombs > 0 then for r = 0, 8 do for c = 0, 8 do
  local crossed = false
  for i = 0, 4 do
    crossed = crossed or (at(r + i, c) == 1 and not first(r + i, c, 0, 1)) or (at(r + i, c + 4) == 1 and first(r + i, c + 4, 0, 1))
      or (at(r, c + i) == 2 and not first(r, c + i, 1, 0)) or (at(r + 4, c + i) == 2 and first(r + 4, c + i, 1, 0))
  end
  if not crossed then print(string.format("2 %d %d", r, c)) return end
end end end
print("1 0 0")
