// Types the extension's scripts rely on that no library declares: the objects the
// content scripts share on the global object (each classic script defines one, the
// next ones use it), and browser APIs TypeScript's DOM library does not have yet.

/** extract.js: the page snapshot. */
declare var NspExtract: {
  Extractor: new (...args: any[]) => any;
  norm(text: string, max: number): string;
  isSecret(el: Element): boolean;
  controlLabel(el: Element): string;
  explainLabel(el: Element): string;
  labelFrom(...args: any[]): string;
  clip(text: string, max: number): string;
  /** "" when a person can see and reach the element, else why not. */
  perceive(el: Element, hover: { set: WeakSet<Element>; count: number } | null, opts: { strict?: boolean; reveal?: "any" | "css" | "none"; point?: { x: number; y: number } } | null): string;
  rememberPassword(el: Node): void;
  hitAt(doc: Document, x: number, y: number): Element | null;
  within(el: Node, node: Node | null): boolean;
  IDX: symbol;
};
/** bridge.js: the probe in the page, or its absence. */
declare var NspBridge: { create(...args: any[]): any };
/** dispatch.js: runs one action in the page. */
declare var NspDispatch: {
  run(...args: any[]): any;
  resolve(...args: any[]): any;
  resolveAll(...args: any[]): any;
  labelOf(el: Element): string;
  actionable(el: Element, read: boolean): void;
  describe(selector: string, capture: any, hover: any): any;
  Failure: new (...args: any[]) => Error;
  /** Its copies of the protocol's lists (tied to them by protocol/tests/extension_contract.rs). */
  contract: { builtins: string[]; failureCodes: string[]; tierRank: Record<string, number> };
};
/** delta.js: applies a capture delta to a state. */
declare var NspDelta: { apply(...args: any[]): any };
/** page-channel.js: the private channel to the page-world script. */
declare var NspPageChannel: any;

interface Navigator {
  /** User-Agent Client Hints (Chromium only). */
  readonly userAgentData?: { brands: { brand: string; version: string }[] };
  /** WebMCP's tool registry, where a page declares its tools. */
  readonly modelContext?: any;
}
interface Document {
  /** The earlier WebMCP draft's registry on the document. */
  readonly modelContext?: any;
}
interface Window {
  /** Set once page-world.js has run in this page. */
  __nspPageWorld?: boolean;
}
