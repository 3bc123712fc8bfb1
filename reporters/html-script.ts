/**
 * The HTML report's only script: filters and column sorting, run in the reader's browser from the
 * file itself (no server, no network). The page's Content-Security-Policy allows exactly this text
 * by its hash; with scripts off the page shows everything, unsorted by hand but complete.
 *
 * Filterable elements carry `data-f` and, per facet, `data-status`, `data-level`, `data-origin`,
 * `data-area`: space-separated values; an element matches a facet when one of its values is
 * ticked (an element without values for a facet is not held to it).
 */
export const HTML_SCRIPT = `
(function () {
  var facets = ['status', 'level', 'origin', 'area'];
  var form = document.getElementById('filters');
  function ticked(facet) {
    var boxes = form.querySelectorAll('input[name="' + facet + '"]');
    var on = [];
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) on.push(boxes[i].value);
    return boxes.length ? on : null;
  }
  function apply() {
    var wanted = {};
    facets.forEach(function (f) { wanted[f] = ticked(f); });
    var items = document.querySelectorAll('[data-f]');
    for (var i = 0; i < items.length; i++) {
      var el = items[i];
      var show = facets.every(function (f) {
        var values = (el.getAttribute('data-' + f) || '').split(' ').filter(Boolean);
        if (!wanted[f] || !values.length) return true;
        return values.some(function (v) { return wanted[f].indexOf(v) >= 0; });
      });
      el.hidden = !show;
    }
    var counters = document.querySelectorAll('[data-shown]');
    for (var j = 0; j < counters.length; j++) {
      var kind = counters[j].getAttribute('data-shown');
      counters[j].textContent = String(document.querySelectorAll('[data-f="' + kind + '"]:not([hidden])').length);
    }
  }
  form.addEventListener('change', apply);
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
  document.getElementById('show-all').addEventListener('click', function () {
    var boxes = form.querySelectorAll('input[type="checkbox"]');
    for (var i = 0; i < boxes.length; i++) boxes[i].checked = true;
    apply();
  });
  form.hidden = false;

  function sortBy(table, column, button) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = button.getAttribute('aria-sort') !== 'ascending';
    var key = function (row) {
      var cell = row.cells[column];
      return cell.hasAttribute('data-v') ? cell.getAttribute('data-v') : cell.textContent.trim();
    };
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var nx = Number(x), ny = Number(y);
      var order = x !== '' && y !== '' && !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    var buttons = table.querySelectorAll('th button');
    for (var i = 0; i < buttons.length; i++) buttons[i].removeAttribute('aria-sort');
    button.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }
  var sortable = document.querySelectorAll('table.sortable');
  for (var t = 0; t < sortable.length; t++) {
    (function (table) {
      var heads = table.tHead.rows[0].cells;
      for (var c = 0; c < heads.length; c++) {
        (function (column) {
          var button = heads[column].querySelector('button');
          if (button) button.addEventListener('click', function () { sortBy(table, column, button); });
        })(c);
      }
    })(sortable[t]);
  }

  // Print everything: folded details open for the printout and close again after.
  var opened = [];
  window.addEventListener('beforeprint', function () {
    opened = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) { return !d.open; });
    opened.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    opened.forEach(function (d) { d.open = false; });
  });
  apply();
})();
`;
