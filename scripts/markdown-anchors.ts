// The anchors GitHub gives a Markdown document's headings, for the links the settings table writes
// (settings-files.ts) and the check that every link of the docs resolves (doc-links.test.ts).

/** Each heading's anchor, with the heading's text; a repeated heading's anchor gets `-1`, `-2`, ... */
export function headingAnchors(markdown: string): Map<string, string> {
  const anchors = new Map<string, string>();
  for (const [, heading = ''] of withoutCodeBlocks(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.set(anchor, text);
  }
  return anchors;
}

/** The document less its fenced code blocks, where `#` starts a comment, not a heading. */
export function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}
