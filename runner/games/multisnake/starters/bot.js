// The first free tile beside the head (up, right, down, left), else up.
const fs = require("fs");
const buffer = Buffer.alloc(1 << 16);
let pending = "";
function line() {
  for (;;) {
    const end = pending.indexOf("\n");
    if (end >= 0) {
      const text = pending.slice(0, end).trim();
      pending = pending.slice(end + 1);
      return text;
    }
    let n = 0;
    try { n = fs.readSync(0, buffer, 0, buffer.length, null); } catch (e) { if (e.code === "EAGAIN") continue; throw e; }
    if (n === 0) process.exit(0);
    pending += buffer.toString("latin1", 0, n);
  }
}
let header = line();
while (header === "") header = line();
const [w, h, , m] = header.split(/\s+/).map(Number);
const me = String.fromCharCode(64 + m);
const moves = [["^", 0, -1], [">", 1, 0], ["v", 0, 1], ["<", -1, 0]];
for (;;) {
  const rows = [];
  while (rows.length < h) { const row = line(); if (row !== "") rows.push(row); }
  let hx = 0, hy = 0;
  rows.forEach((row, y) => { const x = row.indexOf(me); if (x >= 0) { hx = x; hy = y; } });
  let answer = "^";
  for (const [arrow, dx, dy] of moves) {
    const tile = rows[(hy + dy + h) % h][(hx + dx + w) % w];
    if (tile === "." || tile === "+") { answer = arrow; break; }
  }
  fs.writeSync(1, answer + "\n");
}
