// The replay player of a game page. It knows no rules: the page embeds the initial frame and,
// per move, the cells that changed (computed by the Python engine); frames are rebuilt from them.
(function () {
  "use strict";
  var source = document.getElementById("replay-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
  var width = data.width;

  // Decode "ii c ii c ...,ii c ..." (2 index characters + the new character; ',' ends a move).
  var changes = [];
  for (var m = 0; m < data.moves; m++) changes.push([]);
  var text = data.changes;
  for (var p = 0, move = 0; p < text.length;) {
    if (text[p] === ",") { move += 1; p += 1; continue; }
    var index = ALPHABET.indexOf(text[p]) * 64 + ALPHABET.indexOf(text[p + 1]);
    changes[move].push([index, text[p + 2]]);
    p += 3;
  }

  // Every frame, and each seat's cell count in it.
  var frames = [data.initial];
  var cells = data.initial.split("");
  var counts = [0, 0];
  cells.forEach(function (c) { if (c in data.owners) counts[data.owners[c]] += 1; });
  var scores = [counts.slice()];
  changes.forEach(function (move) {
    move.forEach(function (change) {
      var old = cells[change[0]];
      if (old in data.owners) counts[data.owners[old]] -= 1;
      if (change[1] in data.owners) counts[data.owners[change[1]]] += 1;
      cells[change[0]] = change[1];
    });
    frames.push(cells.join(""));
    scores.push(counts.slice());
  });
  var last = frames.length - 1;

  function rows(frame) {
    var out = [];
    for (var y = 0; y < frame.length; y += width) out.push(frame.slice(y, y + width));
    return out.join("\n");
  }

  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function boardHtml(frame) {  // the same markup as board_html() in runner/site.py
    var t = rows(frame) + "\0", html = "", run = "", cls = "";
    for (var i = 0; i < t.length; i++) {
      var ch = t[i];
      var c = data.classes[ch] || "";
      if (c !== cls || ch === "\0") {
        html += cls && run ? '<span class="' + cls + '">' + escapeHtml(run) + "</span>"
                           : escapeHtml(run);
        run = ""; cls = c;
      }
      run += ch;
    }
    return html;
  }

  var $ = function (id) { return document.getElementById(id); };
  var board = $("board"), slider = $("slider"), playButton = $("play"), speed = $("speed");
  var moveItems = $("moves") ? $("moves").children : [];
  var current = 0, timer = null, started = 0, startFrame = 0, marked = null;

  function show(k) {
    current = Math.max(0, Math.min(last, k));
    board.innerHTML = boardHtml(frames[current]);
    $("move").textContent = String(current);
    $("turn").textContent = String(Math.ceil(current / data.perTurn));
    for (var s = 0; s < 2; s++) {
      var el = $("score" + s);
      if (el) el.textContent = String(scores[current][s]);
    }
    $("caption").textContent = current === 0 ? "Start" : current === last ? "Final position"
                                                                          : "Position";
    slider.value = String(current);
    if (marked) marked.classList.remove("current");
    marked = current > 0 ? moveItems[Math.ceil(current / data.perTurn) - 1] || null : null;
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

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = "Play";
    playButton.setAttribute("aria-label", "Play");
  }

  function toggle() { if (timer === null) play(); else pause(); }
  function go(k) { pause(); show(k); }

  function download() {
    var log = frames.map(rows).join("\n\n") + "\n";
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
  if (moveItems.length) {
    $("moves").addEventListener("click", function (e) {
      for (var i = 0; i < moveItems.length; i++) {
        if (moveItems[i] === e.target) { go(Math.min(last, (i + 1) * data.perTurn)); return; }
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
    else return;
    e.preventDefault();
  });

  $("player").hidden = false;
  show(0);
})();
