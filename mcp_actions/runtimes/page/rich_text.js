/*
 * rich_text.js — A rich-text editor's text as a person sees it formatted (docs/mcp-surface.md, "page_read";
 * issue 53): inline bold, emphasis, code and links in compact marks, as markdown writes them:
 * "Intro with **bold words**, *an aside*, `x = 1` and [the docs](/docs/)." A model editing a post reads what
 * is bold or linked without a screenshot. Bold is a <b>/<strong> or a weight of 600 or more where its parent
 * has less (Draft.js and Lexical draw it with a span's style), emphasis an <i>/<em> or italic style where its
 * parent is not, code a <code>, <kbd> or <samp>; blocks (paragraphs, list items, lines) are apart by a space,
 * as the plain value was. Text a reader leaves out (read_structure.js skipReason) is left out here too.
 */
var tagOf = M.tagOf;

var LINK_CAP = 80; // characters of a link's address said
var CODE_TAGS = { code: 1, kbd: 1, samp: 1 };

function styleOf(el) {
  var view = (el.ownerDocument && el.ownerDocument.defaultView) || root;
  return view.getComputedStyle(el);
}

/** What el marks that its parent does not: {bold, em, code}. */
function marksOf(el, parentStyle) {
  var tag = tagOf(el), style = styleOf(el);
  var heavy = function (s) { return (parseInt(s.fontWeight, 10) || 400) >= 600; };
  return {
    bold: (tag === "b" || tag === "strong" || heavy(style)) && !(parentStyle && heavy(parentStyle)),
    em: (tag === "i" || tag === "em" || style.fontStyle === "italic") && !(parentStyle && parentStyle.fontStyle === "italic"),
    code: !!CODE_TAGS[tag],
    style: style,
  };
}

/** el's text with its inline formatting marked (see the module comment), whitespace collapsed. */
function markedText(el) {
  var out = [];
  (function walk(node, parentStyle, inCode) {
    for (var n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) {
        out.push(n.nodeValue);
        continue;
      }
      if (n.nodeType !== 1 || M.skipReason(n)) continue;
      var tag = tagOf(n);
      if (tag === "br") {
        out.push(" ");
        continue;
      }
      var marks = marksOf(n, parentStyle);
      var block = !/^inline/.test(marks.style.display);
      var href = tag === "a" ? n.getAttribute("href") : null;
      var open = (marks.bold ? "**" : "") + (marks.em ? "*" : "") + (marks.code && !inCode ? "`" : "");
      if (block) out.push(" ");
      if (href) out.push("[");
      var start = out.length;
      walk(n, marks.style, inCode || marks.code);
      var inner = out.splice(start).join("");
      // Marks hug the words (markdown's rule): spaces inside them go outside.
      var lead = /^\s*/.exec(inner)[0], trail = /\s*$/.exec(inner)[0], words = inner.trim();
      if (words) out.push(lead + open + words + open.split("").reverse().join("") + trail);
      else out.push(inner);
      if (href) out.push("](" + M.cap(href, LINK_CAP) + ")");
      if (block) out.push(" ");
    }
  })(el, styleOf(el), false);
  return M.normalize(out.join(""));
}

M.markedText = markedText;
