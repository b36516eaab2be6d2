/*
 * extract_schema.js — refs.extract (page_extract, BAP's agent/extract): data read from the page
 * into the shape of a small JSON Schema, each value with the ref of the element it was read from.
 *
 * The schema is an object of string, number or boolean fields, or an array of such objects. A
 * field is found by its words (its title, else its name: "unit_price" is "unit price") where a
 * page says what a value is: a label and its control, a term and its definition (dt/dd), a row
 * header and its cell, a table column's header, "Label: value" text, or an element named after
 * it (itemprop, data-field, name, id or class). An array's records are a table's body rows, or
 * the repeated items (li, article, [itemscope], same-class siblings) in which most fields are
 * found. A field the page does not show is reported missing, never guessed: no nearest text,
 * no default. Numbers are read from the value's text ("$1,234.50" is 1234.5), booleans from a
 * checkbox or a yes/no word.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  refFor = M.refFor,
  isVisible = M.isVisible,
  elementText = M.elementText,
  accessibleName = M.accessibleName,
  normalize = M.normalize;

var VALUE_CAP = 500;
var MAX_RECORDS = 200;
var LABELLED = /^([^:\n]{1,60}):\s*(\S[\s\S]*)$/;

function words(text) {
  return String(text || "").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
}

function fieldsOf(schema) {
  if (!isObject(schema) || !isObject(schema.properties)) fail("invalid_input", "schema must be an object with properties, or an array whose items are one", { field: "schema" });
  return Object.keys(schema.properties).map(function (key) {
    var spec = isObject(schema.properties[key]) ? schema.properties[key] : {};
    var type = spec.type === "number" || spec.type === "integer" || spec.type === "boolean" ? spec.type : "string";
    var wanted = [words(key)];
    if (typeof spec.title === "string" && spec.title.trim()) wanted.unshift(words(spec.title));
    return { key: key, type: type, wanted: wanted };
  });
}

function matches(label, field) {
  var said = words(label);
  if (!said) return false;
  for (var i = 0; i < field.wanted.length; i++) {
    var w = field.wanted[i];
    if (said === w || said === w + "s" || w === said + "s") return true;
  }
  return false;
}

function controlValue(el) {
  if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) return el.checked;
  if (el instanceof HTMLSelectElement) return el.selectedIndex >= 0 ? normalize(el.options[el.selectedIndex].text) : "";
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value;
  return null;
}

function isControl(el) {
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
}

/** Every place under `scope` where the page says what a value is: [{label, el, value}]. */
function pairsIn(scope) {
  var pairs = [];
  var all = scope.querySelectorAll("*");
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (!isVisible(el) && !(el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio"))) continue;
    var tag = el.tagName.toLowerCase();
    if (isControl(el)) {
      if (el.type === "hidden" || el.type === "submit" || el.type === "button") continue;
      var name = accessibleName(el) || el.getAttribute("placeholder") || "";
      pairs.push({ label: name, el: el, value: controlValue(el) });
      continue;
    }
    if (tag === "dt") {
      var dd = el.nextElementSibling;
      if (dd && dd.tagName.toLowerCase() === "dd") pairs.push({ label: elementText(el), el: dd, value: elementText(dd) });
      continue;
    }
    if (tag === "th" && el.parentElement && el.parentElement.tagName.toLowerCase() === "tr") {
      var cell = el.nextElementSibling;
      if (cell && cell.tagName.toLowerCase() === "td") pairs.push({ label: elementText(el), el: cell, value: elementText(cell) });
      continue;
    }
    var named = el.getAttribute("itemprop") || el.getAttribute("data-field") || el.getAttribute("name") || el.id;
    if (named) pairs.push({ label: named, el: el, value: elementText(el), weak: true });
    if (el.classList && el.classList.length && !el.children.length) {
      for (var c = 0; c < el.classList.length; c++) pairs.push({ label: el.classList[c], el: el, value: elementText(el), weak: true });
    }
    // "Label: value" in one element whose text is only that (a leaf, or a bold label and its text).
    if (el.children.length <= 1) {
      var found = LABELLED.exec(elementText(el));
      if (found && (!el.children.length || words(elementText(el.children[0])) === words(found[1]))) pairs.push({ label: found[1], el: el, value: found[2] });
    }
  }
  return pairs;
}

function coerce(value, type) {
  if (type === "boolean") {
    if (typeof value === "boolean") return value;
    var said = words(value);
    if (/^(yes|true|on|checked|y)$/.test(said)) return true;
    if (/^(no|false|off|unchecked|n)$/.test(said)) return false;
    return undefined;
  }
  if (typeof value === "boolean") return type === "string" ? (value ? "yes" : "no") : undefined;
  var text = normalize(String(value === null || value === undefined ? "" : value));
  if (type === "number" || type === "integer") {
    var number = /-?\d[\d,\s]*(?:\.\d+)?|-?\.\d+/.exec(text.replace(/\u00a0/g, " "));
    if (!number) return undefined;
    var parsed = Number(number[0].replace(/[,\s]/g, ""));
    return isFinite(parsed) ? (type === "integer" ? Math.round(parsed) : parsed) : undefined;
  }
  return text ? M.cap(text, VALUE_CAP) : undefined;
}

/** One record under `scope`: each field from the first pair that names it (strong pairs before weak ones). */
function record(scope, fields, path, columns, out) {
  var pairs = null;
  var data = {};
  var found = 0;
  fields.forEach(function (field) {
    var hit = null;
    if (columns && columns[field.key]) hit = { el: columns[field.key], value: elementText(columns[field.key]) };
    if (!hit) {
      pairs = pairs || pairsIn(scope);
      for (var pass = 0; pass < 2 && !hit; pass++) {
        for (var i = 0; i < pairs.length; i++) {
          if (!!pairs[i].weak === (pass === 1) && matches(pairs[i].label, field)) {
            hit = pairs[i];
            break;
          }
        }
      }
    }
    if (!hit && (field.wanted.indexOf("title") >= 0 || field.wanted.indexOf("name") >= 0) && path !== "") {
      // A record's title or name is its heading (or its first link) when nothing labels it.
      var heading = scope.querySelector("h1, h2, h3, h4, h5, h6, a[href]");
      if (heading) hit = { el: heading, value: elementText(heading) };
    }
    var value = hit ? coerce(hit.value, field.type) : undefined;
    var at = path + field.key;
    if (value === undefined) {
      data[field.key] = null;
      out.missing.push(at);
      return;
    }
    data[field.key] = value;
    found += 1;
    out.sources.push({ path: at, ref: refFor(hit.el), text: M.cap(normalize(elementText(hit.el) || String(hit.value)), 200) });
  });
  return { data: data, found: found };
}

/** A table's body rows as records, their cells by the header of their column. */
function tableRecords(scope, fields) {
  var tables = scope.tagName && scope.tagName.toLowerCase() === "table" ? [scope] : Array.prototype.slice.call(scope.querySelectorAll("table"));
  for (var t = 0; t < tables.length; t++) {
    var rows = Array.prototype.slice.call(tables[t].rows);
    if (rows.length < 2) continue;
    var headers = Array.prototype.map.call(rows[0].cells, function (cell) { return elementText(cell); });
    var at = {};
    fields.forEach(function (field) {
      for (var i = 0; i < headers.length; i++) if (matches(headers[i], field)) { at[field.key] = i; break; }
    });
    if (!Object.keys(at).length) continue;
    return rows.slice(1).filter(isVisible).map(function (row) {
      var columns = {};
      Object.keys(at).forEach(function (key) { if (row.cells[at[key]]) columns[key] = row.cells[at[key]]; });
      return { el: row, columns: columns };
    });
  }
  return null;
}

/** The repeated items under `scope` in which the most fields are found: li, article, [itemscope] or same-class siblings. */
function repeatedRecords(scope, fields) {
  var groups = [];
  ["li", "article", "[itemscope]", "tr"].forEach(function (selector) {
    var els = Array.prototype.filter.call(scope.querySelectorAll(selector), isVisible);
    if (els.length) groups.push(els);
  });
  var byClass = {};
  Array.prototype.forEach.call(scope.querySelectorAll("[class]"), function (el) {
    if (!el.parentElement || !isVisible(el)) return;
    var key = el.tagName + "." + el.className;
    (byClass[key] = byClass[key] || []).push(el);
  });
  Object.keys(byClass).forEach(function (key) { if (byClass[key].length >= 2) groups.push(byClass[key]); });
  var best = null;
  groups.forEach(function (els) {
    var probe = { sources: [], missing: [] };
    var score = 0;
    els.slice(0, 5).forEach(function (el) { score += record(el, fields, "probe.", null, probe).found; });
    if (score > 0 && (!best || score > best.score)) best = { score: score, els: els };
  });
  return best ? best.els.map(function (el) { return { el: el, columns: null }; }) : [];
}

function extract(args) {
  var schema = args.schema;
  if (!isObject(schema)) fail("invalid_input", "schema must be a JSON Schema object", { field: "schema" });
  var scope = args.ref !== undefined ? M.elementOfRef(args.ref).el : document.body;
  var out = { sources: [], missing: [] };
  if (schema.type === "array") {
    var fields = fieldsOf(schema.items);
    var records = tableRecords(scope, fields) || repeatedRecords(scope, fields);
    // limit: the first records only, so one wanted row is not read (nor sent) as a hundred.
    var most = typeof args.limit === "number" && args.limit >= 1 ? Math.min(Math.floor(args.limit), MAX_RECORDS) : MAX_RECORDS;
    out.data = records.slice(0, most).map(function (item, index) {
      return record(item.el, fields, index + ".", item.columns, out).data;
    });
    out.records = records.length;
  } else {
    out.data = record(scope, fieldsOf(schema), "", null, out).data;
  }
  out.found = out.sources.length;
  return out;
}

definePrimitive("refs.extract", function (args) { return M.afterLoad(function () { return extract(args); }); });
