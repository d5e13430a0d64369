program Bot;
{ The first legal move, as the arena sends the board: the first domino that fits (row-major), else
  the bomb on the first square no domino crosses. A run of 1s in a row (2s in a column) pairs up
  from its start, so a cell is its domino's first half when an even number of its kind lie
  before it. }
var o, r, c, i, bombs: integer; b: array[-1..13, -1..13] of integer;

function first(r, c, dr, dc: integer): boolean;
var n: integer;
begin
  n := 0;
  while b[r - (n + 1) * dr][c - (n + 1) * dc] = b[r][c] do n := n + 1;
  first := n mod 2 = 0;
end;

function crossed(r, c: integer): boolean;
var i: integer;
begin
  crossed := false;
  for i := 0 to 4 do
    if ((b[r + i][c] = 1) and not first(r + i, c, 0, 1)) or ((b[r + i][c + 4] = 1) and first(r + i, c + 4, 0, 1))
      or ((b[r][c + i] = 2) and not first(r, c + i, 1, 0)) or ((b[r + 4][c + i] = 2) and first(r + 4, c + i, 1, 0)) then
      crossed := true;
end;

begin
  for r := -1 to 13 do for c := -1 to 13 do b[r][c] := -1;
  read(o);
  for r := 0 to 12 do for c := 0 to 12 do read(b[r][c]);
  read(bombs);
  for r := 0 to 12 do for c := 0 to 12 do
    if ((o = 1) and (b[r][c] = 0) and (b[r][c + 1] = 0)) or ((o = 2) and (b[r][c] = 0) and (b[r + 1][c] = 0)) then
    begin writeln('1 ', r, ' ', c); halt(0) end;
  if bombs > 0 then
    for r := 0 to 8 do for c := 0 to 8 do
      if not crossed(r, c) then begin writeln('2 ', r, ' ', c); halt(0) end;
  i := 0;
  writeln('1 0 0');
end.
