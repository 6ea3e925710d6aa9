import TurndownService from "turndown";
import type { ConversionJob } from "./conversion-job.js";
import type { Converted } from "./converted.js";
import { MarkdownOutput } from "./markdown-output.js";

/** What the rules read of a node (the DOM types are not in this package's libraries). */
interface ElementAttributes {
  getAttribute(name: string): string | null;
}

/** Elements whose content is never text for a reader: scripts, styles, embedded objects, forms' innards. */
const dropped: TurndownService.Filter = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "head"];

/**
 * HTML to Markdown with turndown (its Node build parses with domino, a DOM without script
 * execution). Scripts, styles and embedded objects are dropped with their content; images keep
 * their alt text, and `data:` URLs (inline images, often megabytes) are never copied.
 */
export function htmlMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove(dropped);
  service.addRule("images", {
    filter: "img",
    replacement: (_content, node) => {
      const element = node as unknown as ElementAttributes;
      const alt = (element.getAttribute("alt") ?? "").trim();
      const src = (element.getAttribute("src") ?? "").trim();
      if (!src || /^data:/i.test(src)) return alt ? `[image: ${alt}]` : "";
      return `![${alt}](${src})`;
    },
  });
  service.addRule("dataLinks", {
    filter: (node) => node.nodeName === "A" && /^\s*(data|javascript|vbscript):/i.test((node as unknown as ElementAttributes).getAttribute("href") ?? ""),
    replacement: (content) => content,
  });
  return service.turndown(html);
}

/** An HTML document (decoded as UTF-8) to Markdown. */
export function htmlToMarkdown(data: Uint8Array, job: ConversionJob): Converted {
  const output = new MarkdownOutput(job.maxOutputBytes);
  output.add(htmlMarkdown(new TextDecoder().decode(data)));
  return { output, summary: "HTML" };
}
