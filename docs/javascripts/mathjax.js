// MathJax 3 for the site's math: pymdownx.arithmatex (generic) writes \( \) and \[ \] inside
// elements of class "arithmatex", on the Markdown pages and (docs/hooks.py) the notebook pages;
// nothing else on a page is typeset.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  }
};

document$.subscribe(() => {
  MathJax.startup.output.clearCache()
  MathJax.typesetClear()
  MathJax.texReset()
  MathJax.typesetPromise()
})
