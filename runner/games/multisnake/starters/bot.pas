{ The first free tile beside the head (up, right, down, left), else up. }
program Bot;
uses SysUtils;
const
  Arrows: array[0..3] of Char = ('^', '>', 'v', '<');
  DX: array[0..3] of Integer = (0, 1, 0, -1);
  DY: array[0..3] of Integer = (-1, 0, 1, 0);
var
  W, H, N, M, T, X, Y, D, HX, HY: Integer;
  Rows: array[0..149] of AnsiString;
  Me, Tile, Answer: Char;
begin
  ReadLn(W, H, N, M, T);
  Me := Chr(64 + M);
  while True do
  begin
    Y := 0;
    while Y < H do
    begin
      if Eof(Input) then Halt(0);
      ReadLn(Rows[Y]);
      Rows[Y] := Trim(Rows[Y]);
      if Length(Rows[Y]) > 0 then Inc(Y);
    end;
    HX := 0; HY := 0;
    for Y := 0 to H - 1 do
      if Pos(Me, Rows[Y]) > 0 then begin HX := Pos(Me, Rows[Y]) - 1; HY := Y; end;
    Answer := '^';
    for D := 0 to 3 do
    begin
      Tile := Rows[(HY + DY[D] + H) mod H][(HX + DX[D] + W) mod W + 1];
      if (Tile = '.') or (Tile = '+') then begin Answer := Arrows[D]; Break; end;
    end;
    WriteLn(Answer);
    Flush(Output);
  end;
end.
