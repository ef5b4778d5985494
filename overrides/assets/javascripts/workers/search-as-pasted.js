/*
 * Material's search worker, with each query read as a reader pastes it.
 *
 * Material (9.8) hands the query to lunr's query syntax, in which `"…"` makes every word
 * required (lunr has no phrases), `-` and `+` at a word's start exclude or require it,
 * `~` and `^` take a number (edit distance, boost), `*` is a wildcard and `word:` names a
 * field. Pasted from a message, these are the message's own characters: a quoted message
 * found nothing as soon as one of its words (a shape, a version) was on no page, and
 * `~mask`, `x^y`, `**kwargs`, `--flag` or `std::vector` made the whole query invalid (no
 * result at all). Each of them is also a separator of the index (mkdocs.yml), so reading it
 * as a space loses no word: that is all this does, before Material's own worker reads the
 * query. `+=` is kept: it is what a reader types for the in-place operator, and lunr reads it
 * as the word `=` the index holds (a `+` before anything else would make a word required,
 * and for a required word, which skips the wildcard, the Chinese index's lunr still runs
 * lunr's English stemmer: `+variables` looked for `variabl`).
 *
 * Material 9.8 no longer reads the `__search.transform` its documentation still shows; the
 * worker's URL (the `search` key of the page's `__config`) is the hook left, and
 * verified/search_hooks.py points it here, with Material's worker as `?material=`.
 */
"use strict";

var QUERY = 2; /* SearchMessageType.QUERY, Material's worker/message */
var SYNTAX = /["~^*:-]|\+(?!=)/g;

/* Registered before Material's listener, so it runs first on the same message. */
addEventListener("message", function (ev) {
  if (ev.data && ev.data.type === QUERY && typeof ev.data.data === "string")
    ev.data.data = ev.data.data.replace(SYNTAX, " ");
});

var material = new URL(location.href).searchParams.get("material") || "";
if (!/^search\.[0-9a-f]+\.min\.js$/.test(material))
  throw new Error("search-as-pasted.js: no Material search worker named in ?material=");
importScripts(material);

/*
 * lunr 2.3.9's TokenSet.toString, which its builder uses to merge equal nodes of the index's
 * word tree, writes each edge as its character followed by the child's id, with nothing
 * between: edges "1" to node 23 and "4" to node 5 read "12345", as do edges "1" to node 2
 * and "3" to node 45, and two different nodes can be merged. The tree then holds
 * words the index does not: on 2026-12-07 the Chinese index gave, for any query term starting
 * with 5, "TypeError: Cannot read properties of undefined (reading '_index')" and no result.
 * Each edge now ends with a comma: a label is one character, so the text reads back one way.
 */
if (self.lunr && self.lunr.TokenSet) {
  self.lunr.TokenSet.prototype.toString = function () {
    if (this._str) return this._str;
    var str = this.final ? "1" : "0";
    var labels = Object.keys(this.edges).sort();
    for (var i = 0; i < labels.length; i++)
      str += labels[i] + this.edges[labels[i]].id + ",";
    return str;
  };
} else {
  throw new Error("search-as-pasted.js: Material's worker did not define lunr.TokenSet");
}

