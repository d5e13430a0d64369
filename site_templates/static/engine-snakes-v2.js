// Snakes' rules (runner/games/snakes/rules.py, cell for cell as step.c has them) for the replay
// page: a record's moves played again in the browser, each frame drawn as render_text draws it,
// so that a game without a page of its own replays from the published records alone. The
// player (replay.js) asks window.kothEngine(record) for the frames; tests/test_site_replay_
// browser.py holds them to the Python rules' frames.
(function () {
  "use strict";
  var W = 32, H = 16, N = W * H, MAX_MOVES = 2048;
  var TERRITORY = ["X", "O"], HEAD = ["*", "@"];
  var STEP = { L: [-1, 0], R: [1, 0], U: [0, -1], D: [0, 1] };

  // Whether the free 4-neighbours of a cell are joined through its free 8-neighbours
  // (rules.py's _locally_connected): key is the 3 x 3 window, bit 3 * row + column.
  function locallyConnected(key) {
    var ring = [1, 2, 5, 8, 7, 6, 3, 0], free = [], start = -1;
    for (var r = 0; r < 8; r++) {
      free.push(key >> ring[r] & 1);
      if (!free[r] && start < 0) start = r;
    }
    if (start < 0) return true;
    var runs = 0, inRun = false, orthogonal = false;
    for (var k = 1; k <= 8; k++) {
      var i = (start + k) % 8;
      if (free[i]) {
        inRun = true;
        orthogonal = orthogonal || i % 2 === 0;
      } else if (inRun) {
        runs += orthogonal ? 1 : 0;
        inRun = orthogonal = false;
      }
    }
    return runs <= 1;
  }
  var LOCAL_OK = [];
  for (var key = 0; key < 512; key++) LOCAL_OK.push(locallyConnected(key));

  function Game() {
    this.frame = [];
    this.owner = new Uint8Array(N);  // 0 free, 1 X, 2 O
    for (var i = 0; i < N; i++) this.frame.push(".");
    this.head = [0, N - 1];
    this.frame[0] = HEAD[0];
    this.frame[N - 1] = HEAD[1];
    this.owner[0] = 1;
    this.owner[N - 1] = 2;
    this.played = 0;
    this.suffocated = -1;
  }

  Game.prototype.over = function () {
    return this.suffocated >= 0 || this.played >= MAX_MOVES;
  };

  Game.prototype.text = function () {
    var rows = [];
    for (var y = 0; y < H; y++) rows.push(this.frame.slice(y * W, (y + 1) * W).join(""));
    return rows.join("\n");
  };

  Game.prototype.cells = function () {
    var count = [0, 0];
    for (var i = 0; i < N; i++) if (this.owner[i]) count[this.owner[i] - 1]++;
    return count;
  };

  Game.prototype.free = function (x, y, who) {
    return x >= 0 && x < W && y >= 0 && y < H && this.owner[y * W + x] !== who;
  };

  // Fill the mover's enclosures after it took target: every group of the cells it does not
  // own but the largest (ties: the one holding the enemy head, else the first in row-major
  // order). Returns whether the enemy head was filled.
  Game.prototype.enclose = function (seat, target) {
    var who = seat + 1, tx = target % W, ty = (target - tx) / W, key = 0;
    for (var row = 0; row < 3; row++) {
      for (var col = 0; col < 3; col++) {
        if (this.free(tx + col - 1, ty + row - 1, who)) key |= 1 << (3 * row + col);
      }
    }
    if (LOCAL_OK[key]) return false;
    var label = new Int16Array(N), size = [0], groups = 0, queue = new Int16Array(N);
    for (var i = 0; i < N; i++) {
      if (label[i] || this.owner[i] === who) continue;
      var head = 0, tail = 0;
      label[i] = ++groups;
      queue[tail++] = i;
      while (head < tail) {
        var c = queue[head++], x = c % W;
        var next = [x > 0 ? c - 1 : -1, x < W - 1 ? c + 1 : -1, c >= W ? c - W : -1,
                    c < N - W ? c + W : -1];
        for (var d = 0; d < 4; d++) {
          var n = next[d];
          if (n >= 0 && !label[n] && this.owner[n] !== who) {
            label[n] = groups;
            queue[tail++] = n;
          }
        }
      }
      size.push(tail);
    }
    if (groups <= 1) return false;
    var enemyHead = this.head[1 - seat], keep = 1;
    for (var k = 2; k <= groups; k++) {
      if (size[k] > size[keep] || (size[k] === size[keep] && k === label[enemyHead])) keep = k;
    }
    for (var j = 0; j < N; j++) {
      if (label[j] && label[j] !== keep) {
        this.owner[j] = who;
        if (j !== enemyHead) this.frame[j] = TERRITORY[seat];  // a dead head stays drawn
      }
    }
    return label[enemyHead] !== keep;
  };

  Game.prototype.apply = function (move) {
    var seat = this.played % 2, step = STEP[move];
    var at = this.head[seat], x = at % W + step[0], y = (at - at % W) / W + step[1];
    this.played++;
    var target = x < 0 || x >= W || y < 0 || y >= H ? -1 : y * W + x;
    if (target < 0 || target === this.head[1 - seat]) return;  // a no-op
    this.frame[at] = TERRITORY[seat];
    this.frame[target] = HEAD[seat];
    this.head[seat] = target;
    if (this.owner[target] === seat + 1) return;
    this.owner[target] = seat + 1;
    if (this.enclose(seat, target)) this.suffocated = 1 - seat;
  };

  // A record's game: every frame, each frame's [turn, X's cells, O's cells], and each step's
  // [[seat, move]] (as runner/site/frames.py's Replay has them). Throws where the moves do not play.
  window.kothEngine = function (record) {
    var moves = String(record.moves), game = new Game();
    var frames = [game.text()], numbers = [[0].concat(game.cells())], steps = [];
    for (var i = 0; i < moves.length; i++) {
      if (game.over() || !Object.prototype.hasOwnProperty.call(STEP, moves[i])) {
        throw new Error("move " + (i + 1) + " of the record does not play by the rules");
      }
      var turn = (game.played - game.played % 2) / 2 + 1;
      steps.push([[game.played % 2, moves[i]]]);
      game.apply(moves[i]);
      frames.push(game.text());
      numbers.push([turn].concat(game.cells()));
    }
    return { frames: frames, numbers: numbers, steps: steps, layers: null };
  };
})();
