// Types for check-openvsx.mjs, so the project test can call it.
export function openVsxProblems(dir: string, options?: { manifest?: Record<string, unknown>; vsixManifest?: Record<string, unknown> }): Promise<string[]>;
