// Sorting and filtering for the site's tables (the leaderboard, the list of games), in the
// browser: a table marked data-sortable gets a button in each column's header that sorts its
// rows (again: the other way round; a header marked data-first="descending", where more is
// better, sorts the largest first), and a search box that keeps only the rows holding the text
// typed. Without JavaScript the table reads as rendered, in rank order. It only moves and hides
// rows; it never writes markup (all text stays as the server escaped it).
(function () {
  "use strict";

  function key(cell) {  // a cell's sort key: data-sort if given, else its number, else its text
    var given = cell.getAttribute("data-sort");
    var text = given !== null ? given : cell.textContent.trim();
    var number = parseFloat(text.replace(/^[^0-9.+-]+/, ""));
    return isNaN(number) ? { text: text.toLowerCase() } : { number: number };
  }

  function compare(a, b) {
    if ("number" in a && "number" in b) return a.number - b.number;
    if ("number" in a) return -1;  // numbers before text, blanks last
    if ("number" in b) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortable(table, number) {
    var body = table.tBodies[0];
    var headers = table.tHead.rows[0].cells;
    var rows = Array.prototype.slice.call(body.rows);
    var order = rows.slice();  // as rendered: rank order
    var sorted = -1, ascending = true;

    Array.prototype.forEach.call(headers, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      // a column where more is better (points, rating) is sorted best first at the first click
      var first = th.getAttribute("data-first") !== "descending";
      button.addEventListener("click", function () {
        ascending = sorted === column ? !ascending : first;
        sorted = column;
        var keyed = order.map(function (row, i) {
          return { row: row, key: key(row.cells[column]), i: i };
        });
        keyed.sort(function (a, b) {
          var c = compare(a.key, b.key);
          return (ascending ? c : -c) || a.i - b.i;
        });
        keyed.forEach(function (k) { body.appendChild(k.row); });
        Array.prototype.forEach.call(headers, function (h, i) {
          if (i === column) h.setAttribute("aria-sort", ascending ? "ascending" : "descending");
          else h.removeAttribute("aria-sort");
        });
      });
    });

    var label = document.createElement("label");
    label.className = "filter";
    label.appendChild(document.createTextNode(table.getAttribute("data-filter") || "Filter"));
    var input = document.createElement("input");
    input.type = "search";
    input.id = "filter-" + number;
    label.appendChild(input);
    var box = table.parentNode.classList.contains("scroll") ? table.parentNode : table;
    box.parentNode.insertBefore(label, box);
    input.addEventListener("input", function () {
      var wanted = input.value.trim().toLowerCase();
      rows.forEach(function (row) {
        row.hidden = wanted !== "" && row.textContent.toLowerCase().indexOf(wanted) < 0;
      });
    });
  }

  var tables = document.querySelectorAll("table[data-sortable]");
  for (var i = 0; i < tables.length; i++) sortable(tables[i], i);
})();
