/*
  The traceback box (verified/tracebacks.py builds its data; verified/traceback_hooks.py loads
  this script on every page).

  Every page: a link in the header to the box on the error index, in the page's language.
  The error index: the box. A pasted traceback (or one line of it) is matched against every
  message the claims observed, in each framework and release, with the rules of the asset
  (assets/tracebacks.json below the language's root): what varies between runs and releases
  is normalised away, the traceback's frames are left out, and a message matches when enough
  of it (or of the pasted message) is found. The best match opens its entry and names the
  framework and the releases that print it (a message that no entry shows links to the section
  of another page that states its claim); no match says so, lists the closest entries and
  points to the casebook. Nothing is fetched from another host.
*/
(function () {
  "use strict";
  var script = document.currentScript;
  var config = document.getElementById("__config");
  if (!config) return;
  var base = new URL(JSON.parse(config.textContent).base, location.href);
  var errorsPage = new URL("errors/", base);

  function headerLink() {
    var search = document.querySelector(".md-header__inner .md-search");
    if (!search || document.querySelector(".traceback-header-link")) return;
    var link = document.createElement("a");
    link.className = "md-header__button traceback-header-link";
    link.href = errorsPage.href + "#traceback";
    link.textContent = script.dataset.tracebackHeader || "Paste an error";
    link.title = link.textContent;
    search.parentNode.insertBefore(link, search);
  }

  // -- matching: the same steps as verified/tracebacks.py ------------------------------------

  function Matcher(asset) {
    var rules = asset.rules.map(function (r) {
      return [new RegExp(r[0], "g"), r[1]];
    });
    var token = new RegExp(asset.token, "g");
    var stop = new Set(asset.stop);
    function tokens(text) {
      rules.forEach(function (r) {
        text = text.replace(r[0], r[1]);
      });
      return (text.toLowerCase().match(token) || []).filter(function (t) {
        return !stop.has(t);
      });
    }
    var known = asset.messages.map(function (m) {
      return new Set(tokens(m.text));
    });
    var order = {};
    asset.entries.forEach(function (e, i) {
      order[e.id] = i;
    });
    this.scores = function (paste) {
      var pasted = new Set(tokens(messagePart(paste)));
      return asset.messages.map(function (item, i) {
        var common = 0;
        known[i].forEach(function (t) {
          if (pasted.has(t)) common += 1;
        });
        var size = known[i].size;
        var value = size && pasted.size ? Math.max(common / size, common / pasted.size) : 0;
        var matched =
          value >= asset.threshold && common >= Math.min(asset.min_common, size);
        return { item: item, value: value, common: common, matched: matched };
      });
    };
    this.order = order;
  }

  var FRAME = /^\s*File ".*", line \d+/;

  function messagePart(paste) {
    var kept = [];
    var skip = false;
    paste.replace(/\r\n/g, "\n").split("\n").forEach(function (line) {
      if (FRAME.test(line)) {
        skip = true;
        return;
      }
      if (skip && (line.indexOf("    ") === 0 || !line.trim())) return;
      skip = false;
      if (line.trim().indexOf("Traceback (most recent call last)") === 0) return;
      kept.push(line);
    });
    return kept.join("\n");
  }

  function best(matcher, scored) {
    var found = scored.filter(function (s) {
      return s.matched;
    });
    found.sort(function (a, b) {
      return (
        b.value - a.value ||
        b.common - a.common ||
        (a.item.source !== "exception") - (b.item.source !== "exception") ||
        matcher.order[a.item.entry] - matcher.order[b.item.entry]
      );
    });
    return found;
  }

  // -- the box ---------------------------------------------------------------------------

  function element(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, k) {
      return values[k];
    });
  }

  function setup(box, asset) {
    var words = asset.words;
    var matcher = new Matcher(asset);
    var titles = {};
    var hrefs = {}; // an entry on another page (a section that states the claim): its address
    function target(id) {
      return hrefs[id] ? new URL(hrefs[id], base).href : "#" + id;
    }
    asset.entries.forEach(function (e) {
      titles[e.id] = e.title;
      if (e.href) hrefs[e.id] = e.href;
    });
    box.textContent = "";
    var label = element("label", { for: "traceback-input" }, words.label);
    var input = element("textarea", {
      id: "traceback-input",
      rows: "6",
      spellcheck: "false",
      placeholder: words.placeholder,
    });
    var result = element("div", { class: "traceback-result", "aria-live": "polite" });
    result.dataset.status = "empty";
    box.append(label, input, result);

    function show(open) {
      result.textContent = "";
      var paste = input.value;
      if (!paste.trim()) {
        result.dataset.status = "empty";
        result.append(element("p", {}, words.empty));
        return;
      }
      var scored = matcher.scores(paste);
      var found = best(matcher, scored);
      delete result.dataset.entry;
      delete result.dataset.frameworks;
      if (found.length) {
        var entry = found[0].item.entry;
        var releases = {};
        found.forEach(function (f) {
          if (f.item.entry !== entry) return;
          var seen = (releases[f.item.framework] = releases[f.item.framework] || []);
          f.item.releases.forEach(function (r) {
            if (seen.indexOf(r) < 0) seen.push(r);
          });
        });
        result.dataset.status = "found";
        result.dataset.entry = entry;
        result.dataset.frameworks = Object.keys(releases).sort().join(" ");
        var heading = element("p", { class: "traceback-found" });
        var link = element("a", { href: target(entry) }, titles[entry]);
        var parts = words.found.split("{title}");
        heading.append(parts[0], link, parts[1] || "");
        result.append(heading);
        Object.keys(releases)
          .sort()
          .forEach(function (fw) {
            var sorted = releases[fw].slice().sort(compareVersions);
            var line = element(
              "p",
              { class: "traceback-releases", "data-framework": fw },
              fill(words.printed_by, {
                framework: asset.frameworks[fw],
                releases: sorted.join(", "),
              })
            );
            line.dataset.releases = sorted.join(" ");
            result.append(line);
          });
        // an entry of the index is scrolled to; a section of another page is a link away
        // (the reader keeps the box and the pasted text)
        if (open && !hrefs[entry]) location.hash = entry;
        return;
      }
      result.dataset.status = "not-covered";
      result.append(element("p", { class: "traceback-not-covered" }, words.not_covered));
      var byEntry = {};
      scored.forEach(function (s) {
        var e = s.item.entry;
        if (!(e in byEntry) || s.value > byEntry[e]) byEntry[e] = s.value;
      });
      var closest = Object.keys(byEntry)
        .sort(function (a, b) {
          return byEntry[b] - byEntry[a] || matcher.order[a] - matcher.order[b];
        })
        .slice(0, 3);
      result.append(element("p", {}, words.closest));
      var list = element("ul", { class: "traceback-closest" });
      closest.forEach(function (e) {
        var item = element("li");
        item.append(element("a", { href: target(e) }, titles[e]));
        list.append(item);
      });
      result.append(list);
      if (asset.casebook) {
        var casebook = element("p", { class: "traceback-casebook" });
        casebook.append(element("a", { href: new URL(asset.casebook, base).href }, words.casebook));
        result.append(casebook);
      }
    }

    input.addEventListener("input", function () {
      show(false);
    });
    input.addEventListener("paste", function () {
      setTimeout(function () {
        show(true);
      }, 0);
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) show(true);
    });
    var button = element("button", { type: "button", class: "md-button md-button--primary" });
    button.textContent = words.button;
    button.addEventListener("click", function () {
      show(true);
    });
    box.insertBefore(button, result);
    show(false);
    box.dataset.ready = "true";
  }

  function compareVersions(a, b) {
    var x = a.split(".").map(Number);
    var y = b.split(".").map(Number);
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      var d = (x[i] || 0) - (y[i] || 0);
      if (d) return d;
    }
    return 0;
  }

  headerLink();
  var box = document.querySelector("[data-traceback-box]");
  if (!box) return;
  fetch(new URL("assets/tracebacks.json", base))
    .then(function (response) {
      return response.json();
    })
    .then(function (asset) {
      setup(box, asset);
    });
})();
