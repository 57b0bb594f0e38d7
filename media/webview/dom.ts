// Element builders for the sidebar. Text from the host is untrusted (issue titles, comments,
// file names, CLI errors): it only ever reaches the page through textContent, attributes set one
// by one, or aria labels — never through innerHTML or any HTML parser.

export interface ElementOptions {
  className?: string;
  text?: string;
  attrs?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  ...children: (Node | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  decorate(element, options, children);
  return element;
}

/** A custom element (the web components of @vscode-elements) built the same way. */
export function custom(tag: string, options: ElementOptions = {}, ...children: (Node | undefined | false)[]): HTMLElement {
  const element = document.createElement(tag);
  decorate(element, options, children);
  return element;
}

export function icon(name: string, className = ''): HTMLElement {
  return el('span', { className: `codicon codicon-${name} ${className}`.trim(), attrs: { 'aria-hidden': 'true' } });
}

function decorate(element: HTMLElement, options: ElementOptions, children: (Node | undefined | false)[]): void {
  if (options.className) element.className = options.className;
  if (options.text !== undefined) element.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
}
