// Just enough of the `vscode` module for the explorer's tree providers to run under plain Node
// (their data side: getChildren, getTreeItem, change events), and for notifications (recorded,
// answered with the button a test chooses), for the unit tests and the scale benchmark. Import this module first: it makes `require('vscode')` answer the shim, and
// esbuild keeps import order, so the trees imported after it find it.
import Module from 'node:module';

type Listener<T> = (value: T) => void;

class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: number = 0,
  ) {}
}

class MarkdownString {
  isTrusted = false;
  supportHtml = false;
  constructor(public value = '') {}
  appendText(text: string): this {
    this.value += text;
    return this;
  }
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
}

class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: unknown,
  ) {}
}

/** A URI as the trees build them for a row's command (`vscode.open`): its parts and its text. */
class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  toString(): string {
    return `${this.scheme}:${this.path}`;
  }
}

class ThemeColor {
  constructor(readonly id: string) {}
}

/** A notification shown: its level, text and buttons. */
export interface ShownMessage {
  readonly level: 'info' | 'warning' | 'error';
  readonly text: string;
  readonly items: readonly string[];
  /** Shown as a modal dialog (`{ modal: true }`), which the user must answer; absent for a notification. */
  readonly modal?: true;
}

/** Every notification shown, in order; `choose` answers each with the button it names (or none). */
export const notifications = {
  shown: [] as ShownMessage[],
  choose: (_message: ShownMessage): string | undefined => undefined,
};

const notify =
  (level: ShownMessage['level']) =>
  async (text: string, ...items: unknown[]): Promise<string | undefined> => {
    const modal = items.some((item) => typeof item === 'object' && item !== null && (item as { modal?: unknown }).modal === true);
    const message = { level, text, items: items.filter((item): item is string => typeof item === 'string'), ...(modal ? { modal: true as const } : {}) };
    notifications.shown.push(message);
    return notifications.choose(message);
  };

export const vscodeShim = {
  window: { showInformationMessage: notify('info'), showWarningMessage: notify('warning'), showErrorMessage: notify('error') },
  commands: { executeCommand: async () => undefined },
  EventEmitter,
  TreeItem,
  MarkdownString,
  ThemeIcon,
  ThemeColor,
  Uri,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  workspace: { getConfiguration: () => ({ get: <T>(_key: string, fallback: T) => fallback }) },
};

const loader = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
const load = loader._load;
loader._load = function (request: string, parent: unknown, isMain: boolean) {
  return request === 'vscode' ? vscodeShim : load.call(this, request, parent, isMain);
};
