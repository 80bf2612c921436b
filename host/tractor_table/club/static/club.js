// tractor-table club: the live pages' own few lines (docs/club.md). The server
// sends whole states as server-sent events: "table" replaces the table's live
// part, "tile" replaces one room tile. EventSource reconnects by itself and
// sends the last id it saw (Last-Event-ID); the server sends what changed since.
(function () {
  var url = document.body.dataset.stream;
  var conn = document.getElementById("conn");
  if (!url || !window.EventSource) { conn.textContent = "static page"; return; }
  var es = new EventSource(url);
  function state(s) { conn.dataset.state = s; conn.textContent = s; }
  es.onopen = function () { state("live"); };
  es.onerror = function () { state("reconnecting"); };
  es.addEventListener("table", function (e) {
    document.getElementById("table-body").innerHTML = e.data;
    document.body.dataset.lastId = e.lastEventId;
  });
  es.addEventListener("tile", function (e) {
    var box = document.createElement("div");
    box.innerHTML = e.data;
    var tile = box.firstElementChild, old = document.getElementById(tile.id);
    var empty = document.getElementById("empty");
    if (empty) { empty.remove(); }
    if (old) { old.replaceWith(tile); } else { document.getElementById("tiles").appendChild(tile); }
  });
})();
