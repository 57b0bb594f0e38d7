// A source file read as text (`import text from './file.js?raw'`): esbuild.mjs and vitest both load it so.
declare module '*?raw' {
  const text: string;
  export { text as default };
}
