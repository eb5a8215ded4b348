/* Typeset the math of a page with the bundled KaTeX (docs/assets/katex), offline.
 *
 * pymdownx.arithmatex (generic mode) writes inline math as <span class="arithmatex">\(...\)</span> and display
 * math as <div class="arithmatex">\[...\]</div>; each is replaced by KaTeX's rendering. A formula KaTeX cannot
 * parse is shown in red with its source (class "katex-error") instead of breaking the page; the docs-site test
 * fails on it. Material's instant navigation swaps pages without reloading: document$ fires for each page.
 */
(function () {
  "use strict";
  var PAIRS = [["\\(", "\\)", false], ["\\[", "\\]", true], ["$$", "$$", true], ["$", "$", false]];

  function typeset(root) {
    if (typeof katex === "undefined") { return; }
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      var tex = el.textContent.trim(), display = el.tagName === "DIV";
      for (var i = 0; i < PAIRS.length; i++) {
        var open = PAIRS[i][0], close = PAIRS[i][1];
        if (tex.length >= open.length + close.length && tex.slice(0, open.length) === open
            && tex.slice(-close.length) === close) {
          tex = tex.slice(open.length, tex.length - close.length);
          display = PAIRS[i][2];
          break;
        }
      }
      katex.render(tex, el, {displayMode: display, throwOnError: false, output: "htmlAndMathml"});
    });
  }

  if (typeof document$ !== "undefined" && document$ && typeof document$.subscribe === "function") {
    document$.subscribe(function () { typeset(document.body); });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  } else {
    typeset(document.body);
  }
})();
