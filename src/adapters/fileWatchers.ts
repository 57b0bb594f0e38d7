import * as vscode from 'vscode';
import { Disposable, type Subscription } from '../services/disposable';
import type { FileEvents, FileWatchers } from '../services/folderActivity';

interface SharedWatcher {
  watcher: vscode.FileSystemWatcher;
  listeners: Set<FileEvents>;
}

/**
 * Every file watcher of the extension, for the activity tracker and the sidebar alike. Watchers
 * of the same folder and pattern are one VS Code watcher shared by their listeners (the tracker
 * and the sidebar both follow the reflog and `.beads/`), closed when its last listener lets go.
 * Events of other schemes than `file` are dropped: the ledger speaks file paths.
 */
export class VscodeFileWatchers extends Disposable implements FileWatchers {
  private readonly shared = new Map<string, SharedWatcher>();

  watch(base: string, pattern: string, events: FileEvents): Subscription {
    if (this.disposed) return { dispose: () => undefined };
    const key = `${base}\0${pattern}`;
    let entry = this.shared.get(key);
    if (!entry) {
      entry = this.open(base, pattern);
      this.shared.set(key, entry);
    }
    const opened = entry;
    opened.listeners.add(events);
    return {
      dispose: () => {
        opened.listeners.delete(events);
        if (opened.listeners.size > 0 || this.shared.get(key) !== opened) return;
        this.shared.delete(key);
        opened.watcher.dispose();
      },
    };
  }

  override dispose(): void {
    super.dispose();
    for (const entry of this.shared.values()) entry.watcher.dispose();
    this.shared.clear();
  }

  private open(base: string, pattern: string): SharedWatcher {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), pattern));
    const listeners = new Set<FileEvents>();
    const forward = (kind: keyof FileEvents) => (uri: vscode.Uri) => {
      if (uri.scheme !== 'file') return;
      for (const listener of [...listeners]) listener[kind]?.(uri.fsPath);
    };
    // The watcher's own subscriptions end with it.
    watcher.onDidCreate(forward('created'));
    watcher.onDidChange(forward('changed'));
    watcher.onDidDelete(forward('deleted'));
    return { watcher, listeners };
  }
}
