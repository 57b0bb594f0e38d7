import * as vscode from 'vscode';

/**
 * The one lifecycle pattern of the adapters (as in rust-analyzer's and vscode-pull-request-github's
 * extensions): a class registers what it owns as it creates it, and disposing the class disposes
 * each of them once, the last registered first. Something registered after disposal is disposed
 * at once, so a late async start cannot leak.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private isDisposed = false;

  protected get disposed(): boolean {
    return this.isDisposed;
  }

  /** Takes ownership of `item` and returns it. */
  protected register<T extends vscode.Disposable>(item: T): T {
    if (this.isDisposed) item.dispose();
    else this.owned.push(item);
    return item;
  }

  /** A timer owned like any other resource: cleared on disposal, forgotten once it has run. */
  protected setTimeout(run: () => void, delayMs: number): void {
    if (this.isDisposed) return;
    const owner = this.owned;
    const cancel = new vscode.Disposable(() => clearTimeout(timer));
    const timer = setTimeout(() => {
      const index = owner.indexOf(cancel);
      if (index >= 0) owner.splice(index, 1);
      run();
    }, delayMs);
    owner.push(cancel);
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    for (const item of this.owned.splice(0).reverse()) item.dispose();
  }
}
