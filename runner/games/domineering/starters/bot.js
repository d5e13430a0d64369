// The first legal move: the first domino that fits (row-major), else the bomb on the first square
// no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start).
const v = require("fs").readFileSync(0, "utf8").trim().split(/\s+/).map(Number);
const o = v[0], bombs = v[170], [dr, dc] = o === 1 ? [0, 1] : [1, 0];
const at = (r, c) => (r < 0 || r > 12 || c < 0 || c > 12 ? -1 : v[1 + r * 13 + c]);
const first = (r, c, dr, dc) => { let n = 0; while (at(r - (n + 1) * dr, c - (n + 1) * dc) === at(r, c)) n++; return n % 2 === 0; };
const move = (() => {
  for (let r = 0; r < 13; r++) for (let c = 0; c < 13; c++) if (at(r, c) === 0 && at(r + dr, c + dc) === 0) return `1 ${r} ${c}`;
  for (let r = 0; r < 9 && bombs > 0; r++) for (let c = 0; c < 9; c++) {
    let crossed = false;
    for (let i = 0; i < 5; i++)
      crossed ||= (at(r + i, c) === 1 && !first(r + i, c, 0, 1)) || (at(r + i, c + 4) === 1 && first(r + i, c + 4, 0, 1))
        || (at(r, c + i) === 2 && !first(r, c + i, 1, 0)) || (at(r + 4, c + i) === 2 && first(r + 4, c + i, 1, 0));
    if (!crossed) return `2 ${r} ${c}`;
  }
  return "1 0 0";
})();
console.log(move);
