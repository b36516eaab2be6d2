/*
 * read_hidden.js — Three ways a page lays text out and keeps it from a person, which the readers
 * (read_structure.js skipReason and textHidden) leave out (issue 51; docs/threat-model.md, "Hidden
 * text"): a clip-path that leaves no area (clipPathEmpty), a box pushed wholly outside the
 * overflow: hidden boxes that clip it (outsideItsClip; never a box its user scrolls), and an image that
 * draws nothing, whose alt would be read (drawsNothing). Each reads the computed style and boxes the
 * browser already has; the clip of each element is found once per read (withClipCache).
 */
var composedParent = M.composedParent;

function styleOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  return view.getComputedStyle(el);
}

// element -> the part of the viewport its box must meet to be seen, or null when nothing clips it, for one read.
var clipAnswers = null;
// An image's URL -> whether it draws nothing: its pixels do not change between reads (kept for the page, bounded).
var IMAGE_INK = typeof Map === "function" ? new Map() : null;
var IMAGE_INK_CAP = 500;
var IMAGE_SAMPLE = 256; // px a side: a bigger picture is averaged down to this, so one lit pixel still counts

/** A length of a computed basic shape in px: "12px", "50%" of size, "0"; NaN for what this cannot read (calc()). */
function shapeLength(token, size) {
  var m = /^(-?[0-9.]+(?:e-?[0-9]+)?)(px|%)?$/.exec(token || "");
  if (!m) return NaN;
  var n = Number(m[1]);
  return m[2] === "%" ? (n * size) / 100 : m[2] === "px" || n === 0 ? n : NaN;
}

/**
 * Whether a clip-path (its computed value) leaves el no area: circle(0), ellipse() with a radius 0,
 * inset() whose opposite sides meet, a polygon of no area, xywh()/rect() of no size. A shape this
 * cannot measure (calc(), url(#…) of an SVG clip) is taken as drawn.
 */
function clipPathEmpty(el, clipPath) {
  var m = /^(circle|ellipse|inset|polygon|xywh|rect)\((.*)\)/.exec(clipPath);
  if (!m) return false;
  var r = el.getBoundingClientRect(), w = r.width, h = r.height;
  var args = m[2].split(/\s+at\s+|\s+round\s+/)[0].trim();
  var parts = args.split(/\s+/);
  if (m[1] === "circle") return shapeLength(parts[0], Math.sqrt((w * w + h * h) / 2)) === 0;
  if (m[1] === "ellipse") return shapeLength(parts[0], w) === 0 || shapeLength(parts[1], h) === 0;
  if (m[1] === "inset") {
    // One to four values, as margins are written: top, right, bottom, left.
    var t = parts[0], rt = parts[1] || t, b = parts[2] || t, l = parts[3] || rt;
    return shapeLength(t, h) + shapeLength(b, h) >= h || shapeLength(l, w) + shapeLength(rt, w) >= w;
  }
  if (m[1] === "xywh") return shapeLength(parts[2], w) <= 0 || shapeLength(parts[3], h) <= 0;
  if (m[1] === "rect") return shapeLength(parts[2], h) <= shapeLength(parts[0], h) || shapeLength(parts[1], w) <= shapeLength(parts[3], w);
  // polygon([fill-rule,] x y, x y, …): its area by the shoelace formula.
  var points = m[2].replace(/^\s*(nonzero|evenodd)\s*,/, "").split(",").map(function (p) {
    var xy = p.trim().split(/\s+/);
    return [shapeLength(xy[0], w), shapeLength(xy[1], h)];
  });
  var area = 0;
  for (var i = 0; i < points.length; i++) {
    var p = points[i], q = points[(i + 1) % points.length];
    area += p[0] * q[1] - q[0] * p[1];
  }
  return Math.abs(area) / 2 < 1; // NaN (a length not read) is not < 1: drawn
}

/**
 * The part of the viewport el's box must meet to be seen ({left, top, right, bottom}), or null when no
 * box clips it: the intersection of its overflow: hidden or clip ancestors' boxes (on the axes they
 * clip). A scroll container (overflow auto or scroll) ends the search: what it holds is reached by
 * scrolling it, and only the container itself is judged. Absolute boxes are clipped only from their
 * containing block up, fixed ones by nothing.
 */
function seenWithin(el) {
  if (clipAnswers && clipAnswers.has(el)) return clipAnswers.get(el);
  var answer = judgeClip(el);
  if (clipAnswers) clipAnswers.set(el, answer);
  return answer;
}

function judgeClip(el) {
  var style = styleOf(el);
  if (!style || style.position === "fixed") return null;
  var parent = style.position === "absolute" ? el.offsetParent || composedParent(el) : composedParent(el);
  if (!parent || parent.nodeType !== 1 || parent === el.ownerDocument.body || parent === el.ownerDocument.documentElement) return null;
  var ps = styleOf(parent);
  if (!ps || /^(auto|scroll)$/.test(ps.overflowX) || /^(auto|scroll)$/.test(ps.overflowY)) return null;
  var outer = seenWithin(parent);
  var clipX = /^(hidden|clip)$/.test(ps.overflowX), clipY = /^(hidden|clip)$/.test(ps.overflowY);
  if (!clipX && !clipY) return outer;
  var a = parent.getBoundingClientRect();
  var own = { left: clipX ? a.left : -Infinity, right: clipX ? a.right : Infinity, top: clipY ? a.top : -Infinity, bottom: clipY ? a.bottom : Infinity };
  if (!outer) return own;
  return { left: Math.max(own.left, outer.left), right: Math.min(own.right, outer.right), top: Math.max(own.top, outer.top), bottom: Math.min(own.bottom, outer.bottom) };
}

/** Whether el has a box, and it lies wholly outside the boxes that clip it (seenWithin): no scroll of a person's shows it. */
function outsideItsClip(el) {
  var within = seenWithin(el);
  if (!within) return false;
  var r = el.getBoundingClientRect();
  if (!(r.width > 0 || r.height > 0)) return false;
  return r.right <= within.left || r.left >= within.right || r.bottom <= within.top || r.top >= within.bottom;
}

/**
 * Whether an image with a name (alt, aria-label, title) draws nothing: loaded, and every pixel of it
 * fully transparent (read through a canvas, at most IMAGE_SAMPLE px a side). Another site's picture
 * taints the canvas and is taken as drawn; so is one not loaded yet, or broken (then its alt shows).
 */
function drawsNothing(img) {
  if (!IMAGE_INK || !(img.getAttribute("alt") || img.getAttribute("aria-label") || img.getAttribute("title"))) return false;
  if (!img.complete || !img.naturalWidth || !img.naturalHeight) return false;
  var src = String(img.currentSrc || img.src || "");
  var known = IMAGE_INK.get(src);
  if (known !== undefined) return known;
  var nothing = false;
  try {
    var canvas = document.createElement("canvas");
    canvas.width = Math.min(img.naturalWidth, IMAGE_SAMPLE);
    canvas.height = Math.min(img.naturalHeight, IMAGE_SAMPLE);
    var g = canvas.getContext("2d", { willReadFrequently: true });
    g.imageSmoothingQuality = "high"; // averaged down, not sampled: a thin line still leaves some alpha
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    var data = g.getImageData(0, 0, canvas.width, canvas.height).data;
    nothing = true;
    for (var i = 3; i < data.length; i += 4) {
      if (data[i] > 0) {
        nothing = false;
        break;
      }
    }
  } catch (_tainted) {
    nothing = false; // another site's picture: its pixels are not the page's to read, nor ours
  }
  if (IMAGE_INK.size >= IMAGE_INK_CAP) IMAGE_INK.clear();
  IMAGE_INK.set(src, nothing);
  return nothing;
}

/** fn() with each element's clip found once (seenWithin) for its duration only: the page may change between reads. */
function withClipCache(fn) {
  var saved = clipAnswers;
  clipAnswers = typeof WeakMap === "function" ? new WeakMap() : null;
  try {
    return fn();
  } finally {
    clipAnswers = saved;
  }
}

M.clipPathEmpty = clipPathEmpty;
M.outsideItsClip = outsideItsClip;
M.drawsNothing = drawsNothing;
M.withClipCache = withClipCache;
