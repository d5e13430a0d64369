// The replay player. It knows no rules and no game. A game page shows the final text frame and
// embeds, per move, the edits that turn the frame after it back into the one before, plus each
// frame's turn and scores, all computed by the Python engine (runner/site/frames.py describes the
// format). The replay page (replay.html?game=KEY, for a game without a page of its own) fetches
// the game's record where its page says the records are, and the game's engine
// (window.kothEngine, a script of its own) plays its moves into the same frames
// (runner/site/replays.py).
(function () {
  "use strict";
  var ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

  function steps(text, count, digits) {  // each step's edits: [offset, removed, text]
    function number(p) {  // a base-64 number of `digits` digits at text[p]
      var n = 0;
      for (var i = 0; i < digits; i++) n = n * 64 + ALPHABET.indexOf(text[p + i]);
      return n;
    }
    // Each step's edits, "OOc" (one character) or "~OORRLLtext"; ',' ends a step.
    var out = [[]];
    for (var p = 0; out.length <= count;) {
      if (p >= text.length || text[p] === ",") {
        if (out.length === count) break;
        out.push([]);
        p += 1;
      } else if (text[p] === "~") {
        var length = number(p + 1 + 2 * digits), start = p + 1 + 3 * digits;
        out[out.length - 1].push([number(p + 1), number(p + 1 + digits),
                                  text.slice(start, start + length)]);
        p = start + length;
      } else {
        out[out.length - 1].push([number(p), 1, text[p + digits]]);
        p += digits + 1;
      }
    }
    return out;
  }

  function edited(frame, edits) {
    edits.forEach(function (e) { frame = frame.slice(0, e[0]) + e[2] + frame.slice(e[0] + e[1]); });
    return frame;
  }

  function forwards(initial, text, count, digits) {  // every frame from the first, step by step
    var out = [initial];
    if (count > 0) {
      steps(text, count, digits).forEach(function (e) { out.push(edited(out[out.length - 1], e)); });
    }
    return out;
  }

  // A game page's frames, backwards from the final one it shows (runner/site/frames.py), its
  // layers, and each frame's [turn, score of each seat].
  function fromPage(data, board) {
    var final = board.textContent;
    while (final.length < data.finalLength) final = "\n" + final;  // the parser drops one
    var back = data.steps > 0 ? steps(data.changes, data.steps, data.digits) : [];
    var frames = [];
    frames[back.length] = final;
    for (var b = back.length - 1; b >= 0; b--) frames[b] = edited(frames[b + 1], back[b]);
    // A layer over the board (runner/games/spec.py Presentation.layer): per place, a class. Its
    // first frame comes as the edits that turn a blank copy of the board's first into it.
    var layers = null;
    if (data.layer) {
      var blank = frames[0].replace(/[^\n]/g, " ");
      var first = forwards(blank, data.layer.initial, 1, data.digits)[1];
      layers = forwards(first, data.layer.changes, data.steps, data.digits);
    }
    // Each frame's turn and scores: changes from the frame before, trailing zeros left out
    // ("=": the same change as the frame before).
    var numbers = [];
    var row = [];
    var change = [];
    for (var s = 0; s <= data.seats; s++) row.push(0);
    data.numbers.split(",").forEach(function (entry) {
      row = row.slice();
      if (entry !== "=") change = entry ? entry.split(" ") : [];
      change.forEach(function (d, k) { row[k] += Number(d); });
      numbers.push(row);
    });
    return { frames: frames, layers: layers, numbers: numbers };
  }

  var source = document.getElementById("replay-data");
  var season = document.getElementById("replay-season");
  if (source) {
    var pageData = JSON.parse(source.textContent);
    var pageBoard = document.getElementById("board");
    var made = fromPage(pageData, pageBoard);
    start(pageData, pageBoard, made.frames, made.layers, made.numbers);
  } else if (season) {
    replayPage(JSON.parse(season.textContent));
  }

  // The player of ``frames`` (each a text), drawn on ``board``: ``numbers`` holds each frame's
  // [turn, score of each seat], ``layers`` each frame's layer (or is null).
  function start(data, board, frames, layers, numbers) {
    var last = frames.length - 1;

    // The line of the move list each frame belongs to: a new line per step, or per turn.
    var item = [-1];
    var lastFrameOf = [];
    for (var k = 1; k <= last; k++) {
      var next = !data.byTurn || k === 1 || numbers[k][0] !== numbers[k - 1][0];
      item.push(item[k - 1] + (next ? 1 : 0));
      lastFrameOf[item[k]] = k;
    }

    function escapeHtml(s) {
      return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    }

    function span(run, cls) {
      return cls && run ? '<span class="' + cls + '">' + escapeHtml(run) + "</span>"
                        : escapeHtml(run);
    }

    function has(map, key) { return Object.prototype.hasOwnProperty.call(map, key); }

    function lineHtml(line, classes, over) {
      var html = "", run = "", cls = "";
      var overClasses = data.layer ? data.layer.classes : {};
      for (var i = 0; i < line.length; i++) {
        var c = over && i < over.length && has(overClasses, over[i]) ? overClasses[over[i]] : "";
        if (!c) c = has(classes, line[i]) ? classes[line[i]] : "";
        if (c !== cls) {
          html += span(run, cls);
          run = ""; cls = c;
        }
        run += line[i];
      }
      return html + span(run, cls);
    }

    function bound(value, count, fallback) {  // a Python slice bound: null, or negative from the end
      if (value === null) return fallback;
      return Math.max(0, Math.min(count, value < 0 ? count + value : value));
    }

    function boardHtml(frame, layer) {  // the same markup as board_html() in runner/site/frames.py
      var lines = frame.split("\n");
      var over = layer ? layer.split("\n") : [];
      var from = bound(data.lines[0], lines.length, 0);
      var to = bound(data.lines[1], lines.length, lines.length);
      return lines.map(function (line, y) {
        return lineHtml(line, y >= from && y < to ? data.classes : {}, over[y] || "");
      }).join("\n");
    }

    // What each seat sees (Presentation.window): on demand, a square of that side around each
    // of its symbols in the coloured lines, drawn over the board (its padding and the font's
    // character width and line height place it).
    function windowsHtml(frame) {
      var lines = frame.split("\n"), half = (data.window - 1) / 2, html = "";
      var from = bound(data.lines[0], lines.length, 0);
      var to = bound(data.lines[1], lines.length, lines.length);
      for (var y = from; y < to; y++) {
        for (var x = 0; x < lines[y].length; x++) {
          if (data.windowSymbols.indexOf(lines[y][x]) < 0) continue;
          html += '<span class="window" title="what ' + escapeHtml(lines[y][x]) + ' sees" ' +
            'style="left: calc(.7em + ' + (x - half) + "ch); top: calc(.5em + " + (y - half) +
            "lh); width: " + data.window + "ch; height: " + data.window + 'lh"></span>';
        }
      }
      return html;
    }

    // The picture of the board (data.graphic): drawn on a canvas from the same frame and classes
    // as the text, each place in the colours its class has in site.css (so dark mode and the
    // seats' colours come from one place). The text board stays one click away ("Text board").
    var canvas = null, paint = null, colours = {}, status = null, events = null;

    function colourOf(cls) {  // [fill, ink] of a class, read from the page's own CSS
      if (!has(colours, cls)) {
        var probe = document.createElement("span");
        probe.className = cls;
        probe.hidden = false;
        board.parentNode.appendChild(probe);
        var style = window.getComputedStyle(probe);
        var fill = style.backgroundColor;
        if (!cls || fill === "transparent" || fill === "rgba(0, 0, 0, 0)") fill = "";
        colours[cls] = [fill, style.color];
        probe.remove();
      }
      return colours[cls];
    }

    var picture = data.picture || { lines: data.lines, grid: [0, 1], joins: {}, marks: {} };

    // Every cell of the picture's lines: [x, y, symbol, class, layer class]. "grid": only the
    // characters at the grid's columns, x counting cells; otherwise every character.
    function places(frame, layer) {
      var lines = frame.split("\n");
      var over = layer ? layer.split("\n") : [];
      var from = bound(picture.lines[0], lines.length, 0);
      var to = bound(picture.lines[1], lines.length, lines.length);
      var grid = data.graphic === "grid";
      var first = grid ? picture.grid[0] : 0, pitch = grid ? picture.grid[1] : 1;
      var overClasses = data.layer ? data.layer.classes : {};
      var found = [], width = 0;
      for (var y = from; y < to; y++) {
        for (var x = first; x < lines[y].length; x += pitch) {
          var symbol = lines[y][x];
          var o = (over[y] || "")[x];
          var layered = o && has(overClasses, o) ? overClasses[o] : "";
          // A blank is no place, unless the layer marks it on a picture of cells (a fight there).
          if (symbol === " " && (grid || !layered)) continue;
          var cls = layered || (has(data.classes, symbol) ? data.classes[symbol] : "");
          var at = (x - first) / pitch;
          found.push([at, y - from, symbol, cls, layered]);
          width = Math.max(width, at + 1);
        }
      }
      return { places: found, width: width, height: to - from };
    }

    // The frame's lines above the picture's that say something (a status: who moves, who lives;
    // not a ruler of digits), as text over it, coloured by the layer (Multisnake: each letter).
    // Below it, those under the picture's (the Easter Egg Hunt: the turn's fights and returns).
    function statusHtml(frame, layer, below) {
      var lines = frame.split("\n");
      var over = layer ? layer.split("\n") : [];
      var from = bound(picture.lines[0], lines.length, 0);
      var to = bound(picture.lines[1], lines.length, lines.length);
      var shown = [];
      for (var y = below ? to : 0; y < (below ? lines.length : from); y++) {
        if (/[A-Za-z]/.test(lines[y])) shown.push(lineHtml(lines[y].replace(/\s+$/, ""), {}, over[y] || ""));
      }
      return shown.join("\n");
    }

    var UNIT = 12;  // canvas pixels per character column (scaled to the page by CSS)
    var CELL = 24, GAP = 2;  // "grid": canvas pixels from one cell to the next, and around each
    var RULER = 22;  // canvas pixels of the line of column numbers under a picture

    // A ruler under the picture's lines (Cluster's column numbers): [x of a number's last
    // digit, the number] for each number of the first line below made of digits and spaces.
    function rulerOf(frame) {
      var lines = frame.split("\n"), found = [];
      var to = bound(picture.lines[1], lines.length, lines.length);
      var ruler = lines.slice(to).filter(function (l) { return /^[0-9 ]*[0-9][0-9 ]*$/.test(l); })[0];
      if (!ruler) return found;
      ruler.replace(/[0-9]+/g, function (number, at) {
        found.push([at + number.length - 1, number]);
        return number;
      });
      return found;
    }

    function markOf(symbol) {  // the kind of picture.marks (kind → symbols) a symbol has, or ""
      for (var kind in picture.marks) {
        if (has(picture.marks, kind) && picture.marks[kind].indexOf(symbol) >= 0) return kind;
      }
      return "";
    }

    function mark(p, c, x, y, size) {  // what picture.marks draws over a cell, in its ink
      var kind = markOf(p[2]);
      if (!kind) return;
      paint.fillStyle = c[1];
      if (kind === "dot") {
        paint.fillRect(x + size / 3, y + size / 3, size / 3, size / 3);
      } else {
        paint.font = "bold " + Math.round(size * 0.8) + "px sans-serif";
        paint.textAlign = "center";
        paint.textBaseline = "middle";
        paint.fillText(p[2], x + size / 2, y + size / 2 + 1);
      }
    }

    function drawGrid(board_, ink) {  // a square per cell; a piece's cells fill the gap between
      var at = {};
      board_.places.forEach(function (p) { at[p[0] + "," + p[1]] = p; });
      function joined(p, dx, dy) {
        var next = at[(p[0] + dx) + "," + (p[1] + dy)];
        if (!next) return false;
        if (p[4] && next[4] === p[4]) return true;  // one layer block (a bombed square)
        return has(picture.joins, p[2]) && picture.joins[p[2]] === (dx ? "e" : "s");
      }
      board_.places.forEach(function (p) {
        var c = colourOf(p[3]);
        var fill = p[3] ? c[0] || c[1] : "";
        var x = p[0] * CELL + GAP, y = p[1] * CELL + GAP, size = CELL - 2 * GAP;
        if (!fill) {  // an empty cell: a faint square, so the grid reads
          paint.strokeStyle = ink;
          paint.globalAlpha = 0.3;
          paint.strokeRect(x + 0.5, y + 0.5, size - 1, size - 1);
          paint.globalAlpha = 1;
        } else {
          paint.fillStyle = fill;
          paint.fillRect(x, y, size + (joined(p, 1, 0) ? 2 * GAP : 0),
                         size + (joined(p, 0, 1) ? 2 * GAP : 0));
        }
        mark(p, c, x, y, size);
      });
    }

    function draw(frame, layer) {
      var board_ = places(frame, layer);
      var hex = data.graphic === "hex", grid = data.graphic === "grid";
      var w = grid ? CELL : UNIT, h = hex ? UNIT * Math.sqrt(3) : w;  // hex: neighbours 2h apart
      var pad = hex ? h : 0;
      var numbers = grid ? [] : rulerOf(frame);
      canvas.width = Math.ceil(board_.width * w + 2 * pad);
      canvas.height = Math.ceil(board_.height * h + 2 * pad + (numbers.length ? RULER : 0));
      paint.fillStyle = colourOf("")[0] || window.getComputedStyle(board).backgroundColor;
      paint.fillRect(0, 0, canvas.width, canvas.height);
      var ink = window.getComputedStyle(board).color;
      if (grid) { drawGrid(board_, ink); return; }
      paint.fillStyle = ink;
      paint.font = Math.round(RULER * 0.8) + "px sans-serif";
      paint.textAlign = "center";
      paint.textBaseline = "bottom";
      numbers.forEach(function (n) {  // each column's number under it
        paint.fillText(n[1], pad + n[0] * w + (hex ? 0 : w / 2), canvas.height - 2);
      });
      var dots = board_.width * board_.height <= 2500;  // on a large map, specks: left out
      board_.places.forEach(function (p) {
        var c = colourOf(p[3]);
        var marked = markOf(p[2]) !== "";
        var dot = markOf(p[2]) === "dot" && !c[0];  // a dot without a fill of its own (an egg)
        var blank = p[2] === " ";  // an empty tile the layer marks: its frame alone is drawn
        var fill = blank ? "" : p[3] ? c[0] || (dot ? "" : c[1]) : p[2] === "." || marked ? "" : ink;
        if (hex) {
          paint.beginPath();
          paint.arc(pad + p[0] * w, pad + p[1] * h, h * 0.85, 0, 2 * Math.PI);
          if (fill) { paint.fillStyle = fill; paint.fill(); }
          else { paint.strokeStyle = ink; paint.globalAlpha = 0.3; paint.stroke(); paint.globalAlpha = 1; }
        } else if (fill) {
          paint.fillStyle = fill;
          paint.fillRect(p[0] * w, p[1] * h, w, h);
        } else if (!marked && dots && !blank) {  // an empty square: a faint dot, so the grid reads
          paint.fillStyle = ink;
          paint.globalAlpha = 0.25;
          paint.fillRect(p[0] * w + w / 2 - 1, p[1] * h + h / 2 - 1, 2, 2);
          paint.globalAlpha = 1;
        }
        if (p[3].split(" ").indexOf("win") >= 0) {  // a winning line: a ring on each pellet
          paint.beginPath();
          paint.lineWidth = 3;
          paint.strokeStyle = "#ffbf00";
          paint.arc(pad + p[0] * w, pad + p[1] * h, h * 0.85, 0, 2 * Math.PI);
          paint.stroke();
          paint.lineWidth = 1;
        }
        if (!hex) mark(p, p[3] ? c : [fill, ink], p[0] * w, p[1] * h, w);
        if (!hex && p[4].split(" ").indexOf("fight") >= 0) {  // the last turn's fight: a red frame
          paint.lineWidth = 2;
          paint.strokeStyle = "#d50000";
          paint.strokeRect(p[0] * w + 1, p[1] * h + 1, w - 2, h - 2);
          paint.lineWidth = 1;
        }
      });
      if (windows && windows.checked) drawWindows(board_, w, h);
    }

    function drawWindows(board_, w, h) {  // each seat's window (data.window), a dashed square
      var half = (data.window - 1) / 2;
      paint.setLineDash([4, 3]);
      paint.lineWidth = 2;
      paint.strokeStyle = "#c2185b";
      board_.places.forEach(function (p) {
        if (data.windowSymbols.indexOf(p[2]) < 0) return;
        paint.strokeRect((p[0] - half) * w + 1, (p[1] - half) * h + 1, data.window * w - 2,
                         data.window * h - 2);
      });
      paint.setLineDash([]);
      paint.lineWidth = 1;
    }

    var $ = function (id) { return document.getElementById(id); };
    var slider = $("slider"), playButton = $("play"), speed = $("speed");
    var windows = data.window ? $("windows") : null;
    var moveItems = $("moves") ? $("moves").children : [];
    var current = 0, timer = null, started = 0, startFrame = 0, marked = null;

    function show(k) {
      current = Math.max(0, Math.min(last, k));
      board.innerHTML = boardHtml(frames[current], layers ? layers[current] : "");
      if (windows && windows.checked) board.insertAdjacentHTML("beforeend", windowsHtml(frames[current]));
      if (canvas && !canvas.hidden) {  // hidden behind the text board: drawn when shown again
        draw(frames[current], layers ? layers[current] : "");
        status.innerHTML = statusHtml(frames[current], layers ? layers[current] : "", false);
        events.innerHTML = statusHtml(frames[current], layers ? layers[current] : "", true);
      }
      $("move").textContent = String(current);
      $("turn").textContent = String(numbers[current][0]);
      for (var s = 0; s < data.seats; s++) {
        var el = $("score" + s);
        if (el) el.textContent = String(numbers[current][1 + s]);
      }
      $("caption").textContent = current === 0 ? "Start" : current === last ? "Final position"
                                                                            : "Position";
      slider.value = String(current);
      if (marked) marked.classList.remove("current");
      marked = current > 0 ? moveItems[item[current]] || null : null;
      if (marked) marked.classList.add("current");
    }

    function tick() {
      var k = startFrame + Math.floor((performance.now() - started) * Number(speed.value) / 1000);
      show(k);
      if (current >= last) pause();
    }

    function play() {
      if (current >= last) show(0);
      started = performance.now();
      startFrame = current;
      timer = setInterval(tick, 25);
      playButton.textContent = "Pause";
      playButton.setAttribute("aria-label", "Pause");
    }

    // A link to a position: #move=N (the address follows the board, so it can be copied).
    function fromAddress() {
      var found = /^#move=([0-9]+)$/.exec(window.location.hash);
      return found ? Math.min(last, Number(found[1])) : null;
    }

    function remember() {
      if (window.history.replaceState) window.history.replaceState(null, "", "#move=" + current);
    }

    function pause() {
      if (timer !== null) remember();
      if (timer !== null) clearInterval(timer);
      timer = null;
      playButton.textContent = "Play";
      playButton.setAttribute("aria-label", "Play");
    }

    function toggle() { if (timer === null) play(); else pause(); }
    function go(k) { pause(); show(k); remember(); }

    function download() {
      var log = frames.join("\n\n") + "\n";
      var url = URL.createObjectURL(new Blob([log], { type: "text/plain" }));
      var a = document.createElement("a");
      a.href = url;
      a.download = data.log;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    }

    $("first").addEventListener("click", function () { go(0); });
    $("back").addEventListener("click", function () { go(current - 1); });
    $("forward").addEventListener("click", function () { go(current + 1); });
    $("last").addEventListener("click", function () { go(last); });
    playButton.addEventListener("click", toggle);
    slider.addEventListener("input", function () { go(Number(slider.value)); });
    speed.addEventListener("change", function () {
      if (timer !== null) { pause(); play(); }
    });
    $("download").addEventListener("click", download);
    var whole = $("whole");
    function fitWhole() {
      var on = !board.classList.contains("whole");
      board.classList.toggle("whole", on);
      whole.setAttribute("aria-pressed", on ? "true" : "false");
    }
    whole.addEventListener("click", fitWhole);
    if (windows) windows.addEventListener("change", function () { show(current); });
    whole.hidden = board.getBoundingClientRect().height <= window.innerHeight * 0.8;
    if (moveItems.length) {
      $("moves").addEventListener("click", function (e) {
        for (var i = 0; i < moveItems.length; i++) {
          if (moveItems[i] === e.target) { go(lastFrameOf[i]); return; }
        }
      });
    }
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var tag = e.target && e.target.tagName;
      if (tag === "SELECT" || tag === "TEXTAREA") return;
      if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return;
      var onSlider = e.target === slider;
      var step = e.shiftKey ? 10 : 1;
      if (e.key === " ") toggle();
      else if (onSlider) return;  // the slider moves itself on arrows, Home and End
      else if (e.key === "ArrowLeft") go(current - step);
      else if (e.key === "ArrowRight") go(current + step);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(last);
      else if (e.key === "z" && !whole.hidden) fitWhole();
      else if (e.key === "w" && windows) { windows.checked = !windows.checked; show(current); }
      else return;
      e.preventDefault();
    });

    if (data.graphic && board.parentNode.insertBefore) {
      canvas = document.createElement("canvas");
      canvas.id = "picture";
      canvas.className = "picture " + data.graphic;
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", "the board (the text board shows the same position)");
      paint = canvas.getContext("2d");
      board.parentNode.insertBefore(canvas, board);
      status = document.createElement("pre");
      status.id = "status";
      status.className = "status";
      board.parentNode.insertBefore(status, canvas);
      events = document.createElement("pre");
      events.id = "events";
      events.className = "status";
      board.parentNode.insertBefore(events, board);
      board.hidden = true;
      whole.hidden = true;  // the picture fits the window by itself
      var text = $("text");
      text.hidden = false;
      text.addEventListener("click", function () {
        var showText = board.hidden;
        board.hidden = !showText;
        canvas.hidden = showText;
        status.hidden = showText;
        events.hidden = showText;
        if (!showText) show(current);
        text.setAttribute("aria-pressed", showText ? "true" : "false");
        whole.hidden = !showText || board.getBoundingClientRect().height <= window.innerHeight * 0.8;
      });
    }
    $("player").hidden = false;
    var linked = fromAddress();
    show(linked === null ? 0 : linked);
    window.addEventListener("hashchange", function () {
      var k = fromAddress();
      if (k !== null) go(k);
    });
  }


  // -- the replay page: a game's record fetched, its moves played by the game's engine ---------

  function element(tag, text, cls) {
    var made = document.createElement(tag);
    if (text !== undefined) made.textContent = text;
    if (cls) made.className = cls;
    return made;
  }

  function fill(id, parts) {  // an element's content: text (never markup) and elements
    var at = document.getElementById(id);
    at.textContent = "";
    parts.forEach(function (p) { at.append(p); });
    return at;
  }

  function replayPage(season) {
    var loading = document.getElementById("loading");
    var wanted = new URLSearchParams(window.location.search).get("game") || "";
    if (!/^[0-9a-f]{12,64}$/.test(wanted)) {
      loading.textContent = "This page replays the game its address names: replay.html?game= " +
        "and the first 12 or more digits of the game's key (every game links it).";
      return;
    }
    // The page says where the records are: its {key:N} is the key's first N digits.
    var url = season.records.replace(/\{key:([0-9]+)\}/, function (_, n) {
      return wanted.slice(0, Number(n));
    });
    loading.textContent = "Fetching the game's record…";
    fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + " answered " + response.status);
      var plain = response.body.pipeThrough(new DecompressionStream("gzip"));
      return new Response(plain).text();
    }).then(function (text) {
      var lines = text.split("\n");
      for (var i = 0; i < lines.length; i++) {
        if (!lines[i]) continue;
        var found = JSON.parse(lines[i]);  // [the game's number, its seed as text, its record]
        if (String(found[2].key).indexOf(wanted) === 0) {
          return showGame(season, wanted, found[0], found[1], found[2]);
        }
      }
      throw new Error("no game " + wanted + " in " + url);
    }).catch(function (error) {
      loading.textContent = "The game cannot be replayed here: " + error.message + ".";
    });
  }

  function entryLink(entry, name) {
    var a = element("a", name);
    a.href = "entries/" + entry + ".html";
    return a;
  }

  function ordinal(n) {
    var tens = n % 100, units = n % 10;
    var suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][units] || "th";
    return n + suffix;
  }

  // Each seat's result as the game pages show it (site.py _seat_results): [text, class].
  function results(record) {
    var points = record.outcome.points.map(Number);
    if (points.length === 2) {
      return points.map(function (p, seat) {
        var other = points[1 - seat];
        var mark = p > other ? "W" : p === other ? "D" : "L";
        return [mark, mark];
      });
    }
    var places = record.outcome.placement || points.map(function (p) {
      return 1 + points.filter(function (q) { return q > p; }).length;
    });
    var lastPlace = Math.max.apply(null, places);
    return places.map(function (p) {
      return [ordinal(p), p === 1 ? "W" : p === lastPlace && p > 1 ? "L" : "D"];
    });
  }

  function moveItems(steps, numbers, data, seatNames) {  // replay.py move_items
    function shown(text) { return text.length <= 24 ? text : text.slice(0, 23) + "…"; }
    var items = [], previous = null;
    steps.forEach(function (moves, k) {
      var turn = numbers[k + 1][0];
      if (!data.byTurn) {
        items.push(moves.map(function (m) { return seatNames[m[0]] + " " + shown(m[1]); })
                        .join(" "));
        return;
      }
      var texts = moves.map(function (m) { return shown(m[1]); }).join(" ");
      if (turn === previous) items[items.length - 1] += " " + texts;
      else items.push(texts);
      previous = turn;
    });
    return items;
  }

  // The game ``name`` (its page's name: its key, or the key's first 12 digits) on the page.
  function showGame(season, name, number, seed, record) {
    var made = window.kothEngine(record);
    var seats = record.seats, outcome = record.outcome, shown = results(record);
    var names = seats.map(function (s) { return season.names[s.entry] || s.name || s.entry; });
    var seatNames = season.seatNames, classes = season.seatClasses;
    var final = made.numbers[made.numbers.length - 1];
    function seatName(i) {
      var name = seatNames[i] || "seat " + (i + 1);
      return classes[i] ? element("span", name, classes[i]) : name;
    }
    document.title = "Game " + number + document.title.slice(document.title.indexOf(" ·"));
    var title = ["Game " + number + ": "];
    seats.forEach(function (s, i) {
      title.push(entryLink(s.entry, names[i]), " (" + (seatNames[i] || "seat " + (i + 1)) + ")");
      if (i < seats.length - 1) title.push(" vs ");
    });
    fill("title", title);
    var first = shown.map(function (r, i) { return r[1] === "W" ? i : -1; })
                     .filter(function (i) { return i >= 0; })
                     .map(function (i) { return seatNames[i] || "seat " + (i + 1); });
    var winner = seats.length === 2 ? (first.length ? first[0] + " wins" : "draw")
      : first.length === 1 ? first[0] + " wins"
      : first.slice(0, -1).join(", ") + " and " + first[first.length - 1] + " share first";
    fill("winner", [winner]);
    var ending = season.endings[outcome.termination] || outcome.termination;
    fill("ending", [element("span", ending, "end end-" + outcome.termination)].concat(
      outcome.detail ? [": " + outcome.detail] : []));
    var faults = (outcome.faults || []).map(function (f) {
      return element("li", (seatNames[f.seat] || "seat " + (f.seat + 1)) + " (" + names[f.seat] +
        "): " + (season.endings[f.termination] || f.termination) +
        (f.detail ? ": " + f.detail : ""));
    });
    if (faults.length) fill("faults", faults).hidden = false;
    fill("seats", seats.map(function (s, i) {
      var row = element("tr");
      var cells = [[seatName(i)], [entryLink(s.entry, names[i])], [element("code", s.entry)],
                   [shown[i][0]], [String(outcome.points[i])], [String(final[1 + i])]];
      cells.forEach(function (parts, c) {
        var cell = element("td", undefined, c === 3 ? "r-" + shown[i][1] : c >= 4 ? "num" : "");
        parts.forEach(function (p) { cell.append(p); });
        row.append(cell);
      });
      return row;
    }));
    var scores = [season.score[1]];
    seats.forEach(function (s, i) {
      var score = element("span", String(final[1 + i]));
      score.id = "score" + i;
      scores.push(seatName(i), " " + names[i] + ": ", score);
      if (i < seats.length - 1) scores.push(" · ");
    });
    scores.push(season.score[2]);
    fill("scores", scores);
    fill("steps", [String(made.steps.length)]);
    fill("moves", moveItems(made.steps, made.numbers, season.player, seatNames).map(function (t) {
      return element("li", t);
    }));
    var outputs = (record.measured || {}).output || [];
    var printed = document.getElementById("outputs");
    outputs.forEach(function (text, i) {
      if (!text) return;
      printed.append(element("h3", (seatNames[i] || "seat " + (i + 1)) + ": " + names[i]));
      printed.append(element("pre", String(text), "output"));
      printed.hidden = false;
    });
    var play = ["koth play"].concat(seats.map(function (s) { return s.entry; }));
    play.push("--seed " + seed);
    if (record.setup) play.push("--setup " + record.setup.name);
    if (season.config) play.push("--config " + season.config);
    fill("play-again", [play.join(" ")]);
    fill("replay-commands", seats.map(function (s, i) {
      var command = "koth replay " + name + " --seat " + (i + 1);
      if (Object.prototype.hasOwnProperty.call(season.names, s.entry)) command += " --bot " + s.entry;
      var item = element("li", (seatNames[i] || "seat " + (i + 1)) + " (" + s.entry + "): ");
      item.append(element("code", command));
      return item;
    }));
    fill("seed", [seed]);
    fill("round", [String(record.round === undefined ? "" : record.round)]);
    fill("key", [record.key]);
    var stamp = (record.measured || {}).when || "";
    fill("played", [stamp ? stamp.replace("T", " ").slice(0, 16) + " UTC" : ""]);
    // the player: the slider's end, and the slowest speed that plays it in watchSeconds
    var data = Object.assign({}, season.player, { steps: made.steps.length,
                                                  log: name + ".txt" });
    document.getElementById("slider").max = String(made.steps.length);
    var speed = season.speeds.filter(function (n) {
      return made.steps.length <= n * season.watchSeconds;
    })[0] || season.speeds[season.speeds.length - 1];
    document.getElementById("speed").value = String(speed);
    document.getElementById("loading").hidden = true;
    document.getElementById("replay-game").hidden = false;
    start(data, document.getElementById("board"), made.frames, made.layers, made.numbers);
  }
})();
