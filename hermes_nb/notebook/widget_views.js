// hermes_nb's interactive result views, one ES module for anywidget (JupyterLab, Notebook 7, VS Code,
// Colab, marimo). The Python model (hermes_nb/notebook/widgets.py) fills the synced traits:
//   kind         "search" | "pages" | "gallery"
//   title        one line above the view
//   items        search: [{position, title, url, description}]   pages: [{title, html}]
//                gallery: [{src, href, name, caption}]
//   page, page_size   paging over search hits (the model clamps page)
//   detail_html  what the "extract" button brought back (static HTML made by the kernel)
//   busy         an extract is running
// The "extract" button sends {type: "extract", url}; the kernel answers by setting detail_html.
// HTML strings come from the kernel's own renderers, which escape every value they embed.

const LINK = "color:var(--jp-content-link-color,#0969da);text-decoration:underline";

function make(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "style") node.style.cssText = value;
    else if (key === "className") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function button(label, className, onClick, disabled = false) {
  const node = make("button", { className: `hermes-nb-button ${className}`, type: "button", text: label });
  node.disabled = disabled;
  node.addEventListener("click", onClick);
  return node;
}

function drawSearch(model, box) {
  const items = model.get("items") || [];
  const size = Math.max(1, model.get("page_size") || 5);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const page = Math.min(Math.max(model.get("page") || 0, 0), pages - 1);
  const go = (next) => {
    model.set("page", next);
    model.save_changes();
  };
  const label = make("span", { className: "hermes-nb-page-label", text: `page ${page + 1}/${pages} · ${model.get("title")}` });
  box.append(
    make("div", { className: "hermes-nb-pager", style: "display:flex;gap:6px;align-items:center;margin-bottom:4px" }, [
      button("◀ prev", "hermes-nb-prev", () => go(page - 1), page === 0),
      button("next ▶", "hermes-nb-next", () => go(page + 1), page >= pages - 1),
      label,
    ]),
  );
  const rows = make("ol", { className: "hermes-nb-hits", style: "list-style:none;padding:0;margin:0" });
  for (const hit of items.slice(page * size, page * size + size)) {
    const link = make("a", { href: hit.url, target: "_blank", rel: "noopener noreferrer", style: LINK, text: hit.title || hit.url });
    const extract = button("extract", "hermes-nb-extract-button", () => {
      model.send({ type: "extract", url: hit.url });
    }, model.get("busy"));
    rows.append(
      make("li", { style: "display:flex;gap:8px;align-items:flex-start;margin:4px 0" }, [
        extract,
        make("div", {}, [make("b", { text: `${hit.position}. ` }), link, make("br"), make("small", { text: hit.description || "" })]),
      ]),
    );
  }
  box.append(rows);
  const detail = make("div", { className: "hermes-nb-detail" });
  if (model.get("busy")) detail.append(make("em", { text: "extracting…" }));
  else detail.innerHTML = model.get("detail_html") || "";
  box.append(detail);
}

function drawPages(model, box) {
  box.append(make("div", { className: "hermes-nb-page-label", text: model.get("title") }));
  for (const item of model.get("items") || []) {
    const body = make("div", { style: "max-height:480px;overflow:auto;padding:4px 8px" });
    body.innerHTML = item.html || "";
    box.append(make("details", { className: "hermes-nb-page" }, [make("summary", { text: item.title }), body]));
  }
}

function drawGallery(model, box) {
  box.append(make("div", { className: "hermes-nb-page-label", text: model.get("title") }));
  const grid = make("div", { className: "hermes-nb-gallery-grid", style: "display:grid;grid-template-columns:repeat(auto-fill,270px);gap:8px" });
  for (const image of model.get("items") || []) {
    grid.append(
      make("figure", { style: "margin:0" }, [
        make("img", { className: "hermes-nb-gallery-image", src: image.src, alt: image.caption || "", style: "max-width:256px" }),
        make("figcaption", {}, [
          make("small", { text: image.caption || "" }),
          make("br"),
          make("a", { href: image.href, target: "_blank", style: LINK, text: "open" }),
          " · ",
          make("a", { href: image.href, download: image.name, style: LINK, text: "download" }),
        ]),
      ]),
    );
  }
  box.append(grid);
}

const DRAW = { search: drawSearch, pages: drawPages, gallery: drawGallery };
const WATCHED = ["kind", "title", "items", "page", "page_size", "detail_html", "busy"];

function render({ model, el }) {
  const box = make("div", { className: "hermes-nb-widget", style: "font-family:inherit;color:inherit" });
  const draw = () => {
    box.replaceChildren();
    const kind = model.get("kind");
    if (DRAW[kind]) DRAW[kind](model, box);
  };
  for (const name of WATCHED) model.on(`change:${name}`, draw);
  draw();
  el.append(box);
  return () => {
    for (const name of WATCHED) model.off(`change:${name}`, draw);
  };
}

export default { render };
