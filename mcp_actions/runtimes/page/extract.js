/*
 * extract.js — dom.extract: many records in one round trip, for state
 * projections (docs/manifest-language.md, State projections). Each extract entry of a manifest's
 * snapshot.extract is applied verbatim:
 *   {id, selector | xpath, many (default true at the top), fields}
 * and each field: selector/xpath relative to its record (absent = the record
 * itself), many + nested fields (sub-records), closest, then the value from
 * attribute, property or the text; trim, required, default.
 * Output: {records: {id: [...] | record | null},
 *          diagnostics: {selector_counts, missing_required_fields}}.
 * Selectors search through open shadow roots.
 */
var definePrimitive = M.definePrimitive,
  fail = M.fail,
  isObject = M.isObject,
  round = M.round,
  queryAllDeep = M.queryAllDeep,
  closestDeep = M.closestDeep;

var PROPERTIES = {
  innerText: function (el) { return typeof el.innerText === "string" ? el.innerText : el.textContent; },
  textContent: function (el) { return el.textContent; },
  value: function (el) { return el.value === undefined ? null : el.value; },
  checked: function (el) { return el.checked === undefined ? null : !!el.checked; },
  ariaLabel: function (el) { return el.getAttribute("aria-label"); },
  boundingClientRect: function (el) {
    var r = el.getBoundingClientRect();
    return { x: round(r.left), y: round(r.top), width: round(r.width), height: round(r.height) };
  },
};

function matchesOf(spec, scope, path) {
  if (spec.xpath !== undefined) {
    if (typeof spec.xpath !== "string" || !spec.xpath) fail("invalid_selector", path + ".xpath must be a non-empty string", { path: path });
    var result;
    try {
      result = document.evaluate(spec.xpath, scope || document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    } catch (_err) {
      fail("invalid_selector", path + ".xpath is not a valid expression: " + spec.xpath, { path: path, xpath: spec.xpath });
    }
    var out = [];
    for (var i = 0; i < result.snapshotLength; i++) if (result.snapshotItem(i).nodeType === 1) out.push(result.snapshotItem(i));
    return out;
  }
  if (spec.selector === undefined) return scope ? [scope] : [];
  if (typeof spec.selector !== "string" || !spec.selector.trim()) fail("invalid_selector", path + ".selector must be a non-empty CSS selector", { path: path });
  try {
    // Relative selectors look inside the record only (not the record itself).
    return scope ? queryAllDeep(spec.selector, scope).filter(function (el) { return el !== scope; }) : queryAllDeep(spec.selector);
  } catch (_err) {
    fail("invalid_selector", path + ".selector is not a valid CSS selector: " + spec.selector, { path: path, selector: spec.selector });
  }
}

function valueOf(field, el, path) {
  var value;
  if (field.attribute !== undefined) value = el.getAttribute(String(field.attribute));
  else if (field.property !== undefined) {
    var getter = Object.prototype.hasOwnProperty.call(PROPERTIES, field.property) ? PROPERTIES[field.property] : null;
    if (!getter) fail("invalid_input", path + ".property must be one of " + Object.keys(PROPERTIES).join(", "), { path: path, property: field.property });
    value = getter(el);
  } else value = PROPERTIES.innerText(el);
  if (typeof value === "string" && field.trim !== false) value = value.replace(/\s+/g, " ").trim();
  return value === undefined ? null : value;
}

function retarget(field, el, path) {
  if (field.closest === undefined) return el;
  if (typeof field.closest !== "string" || !field.closest.trim()) fail("invalid_selector", path + ".closest must be a CSS selector", { path: path });
  try {
    return closestDeep(el, field.closest);
  } catch (_err) {
    fail("invalid_selector", path + ".closest is not a valid CSS selector: " + field.closest, { path: path });
  }
}

/** The fields of one record (element el), filling counts and missing lists. */
function extractRecord(fields, el, ctx, countKey, fieldPath) {
  var record = {};
  if (!isObject(fields)) return record;
  Object.keys(fields).forEach(function (name) {
    var field = fields[name];
    var path = fieldPath ? fieldPath + "." + name : name;
    var key = countKey + "." + name;
    if (!isObject(field)) fail("invalid_input", "field " + path + " of entry " + ctx.entry + " must be an object", { entry: ctx.entry, field: path });
    var found = matchesOf(field, el, ctx.entry + "." + path);
    ctx.counts[key] = (ctx.counts[key] || 0) + (field.selector === undefined && field.xpath === undefined ? 0 : found.length);
    var targets = found.map(function (m) { return retarget(field, m, path); }).filter(Boolean);
    if (field.many === true) {
      record[name] = targets.map(function (t, i) {
        return isObject(field.fields) ? extractRecord(field.fields, t, ctx, key, path + "." + i) : valueOf(field, t, path);
      });
      return;
    }
    var value = null;
    if (targets.length) value = isObject(field.fields) ? extractRecord(field.fields, targets[0], ctx, key, path) : valueOf(field, targets[0], path);
    if ((value === null || value === "") && field["default"] !== undefined) value = field["default"];
    if ((value === null || value === "") && field.required === true) {
      ctx.missing.push({ entry: ctx.entry, record: ctx.record, field: path });
    }
    record[name] = value;
  });
  return record;
}

function domExtract(args) {
  var entries = args.extract;
  if (!Array.isArray(entries)) fail("invalid_input", "extract must be an array of extract entries", { field: "extract" });
  var records = {};
  var counts = {};
  var missing = [];
  entries.forEach(function (entry, i) {
    if (!isObject(entry) || typeof entry.id !== "string" || !entry.id) fail("invalid_input", "extract[" + i + "] needs a string id", { field: "extract/" + i });
    if (entry.selector === undefined && entry.xpath === undefined) fail("invalid_selector", "extract entry " + entry.id + " needs a selector or xpath", { entry: entry.id });
    var found = matchesOf(entry, null, entry.id);
    counts[entry.id] = found.length;
    var many = entry.many !== false;
    var list = (many ? found : found.slice(0, 1)).map(function (el, index) {
      return extractRecord(entry.fields, el, { entry: entry.id, record: index, counts: counts, missing: missing }, entry.id, "");
    });
    records[entry.id] = many ? list : list.length ? list[0] : null;
  });
  return { records: records, diagnostics: { selector_counts: counts, missing_required_fields: missing } };
}

definePrimitive("dom.extract", domExtract, ["extract"]);
