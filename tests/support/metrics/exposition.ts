/** The value of each sample in Prometheus's text format whose name and labels include `match`'s. */
export function samplesOf(text: string, name: string, labels: Record<string, string> = {}): number[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`)))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
}

/** The sum of those samples: over workers or status codes, say. */
export function sumOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(text, name, labels).reduce((sum, value) => sum + value, 0);
}
