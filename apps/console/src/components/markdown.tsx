// The one way the console shows Markdown (model answers, skill bodies): marked renders it, raw HTML in
// the source is shown as text, and DOMPurify keeps only inert markup. Links open in a new tab with
// rel="noopener noreferrer" and only http(s), mailto and same-origin targets; images that are not
// data/blob URLs (the CSP would refuse them, and they could track) become links.
import DOMPurify, { type DOMPurify as Purifier } from "dompurify";
import { Marked } from "marked";
import { useMemo } from "react";
import { revealBidi } from "../text/reveal-bidi.js";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => escapes[character] ?? character);
const safeLink = /^(?:https?:|mailto:|#|\/(?!\/)|\.{0,2}\/)/i;
const inlineImage = /^(?:data:image\/(?:png|gif|jpeg|webp);|blob:)/i;

function makeRenderer(): (source: string) => string {
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  // Raw HTML in the Markdown is text, not markup: a model or a skill cannot inject elements.
  marked.use({ renderer: { html: ({ text }) => escapeHtml(text) } });
  const purifier: Purifier = DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (!safeLink.test(href.trim())) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "IMG") {
      const src = node.getAttribute("src") ?? "";
      if (!inlineImage.test(src)) {
        const link = node.ownerDocument.createElement("a");
        link.textContent = node.getAttribute("alt") || "image";
        if (safeLink.test(src.trim())) {
          link.setAttribute("href", src);
          link.setAttribute("target", "_blank");
          link.setAttribute("rel", "noopener noreferrer");
        }
        node.replaceWith(link);
      }
    }
  });
  const config = {
    USE_PROFILES: { html: true },
    // Nothing that runs, submits, embeds or restyles: the CSP forbids inline style, and ids or classes
    // could clobber or imitate the console's own elements.
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "object", "embed", "svg", "math", "link", "meta", "base", "video", "audio", "source", "picture"],
    FORBID_ATTR: ["style", "class", "id", "name", "srcset", "formaction", "action"],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  };
  return (source) => purifier.sanitize(marked.parse(revealBidi(source)) as string, config);
}

let render: ((source: string) => string) | undefined;

/** Markdown as sanitised HTML (exported for tests and for pages that need the string). */
export function markdownToHtml(source: string): string {
  render ??= makeRenderer();
  return render(source);
}

/** Renders untrusted Markdown harmlessly. */
export function Markdown({ source, className }: { readonly source: string; readonly className?: string }) {
  const html = useMemo(() => markdownToHtml(source), [source]);
  return <div className={className ? `markdown ${className}` : "markdown"} dangerouslySetInnerHTML={{ __html: html }} />;
}
