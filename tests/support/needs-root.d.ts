// The types of needs-root.js, which stays JavaScript for the reporter that Jest loads untransformed.
interface JestResults {
  readonly testResults: ReadonlyArray<{
    readonly testFilePath: string;
    readonly testResults: ReadonlyArray<{ readonly title: string; readonly status: string }>;
  }>;
}

export function runningAsRoot(): boolean;
export function withoutRootLine(results: JestResults, root?: boolean): string | null;
