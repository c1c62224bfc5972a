// Types the extension's scripts rely on that no library declares: the objects the
// content scripts share on the global object (each classic script defines one, the
// next ones use it), the wire shapes they read (mirrors of nsp_protocol's types, for
// the checker only: protocol/tests/extension_contract.rs ties the real lists), and
// browser APIs TypeScript's DOM library does not have yet.

// --- elements as the extension reads them -----------------------------------------------

/** Properties only some kinds of element have (form fields, HTML elements), read off
 * any element: undefined on an element that has none (an SVG icon, a <div>). */
interface MaybeField {
  readonly type?: string;
  /** A field's value; anything else has none. */
  value?: unknown;
  checked?: boolean;
  disabled?: boolean;
  multiple?: boolean;
  name?: string;
  readonly labels?: NodeListOf<HTMLLabelElement> | null;
  readonly form?: HTMLFormElement | null;
  readonly offsetParent?: Element | null;
  readonly isContentEditable?: boolean;
  readonly innerText?: string;
}
/** Any element of a page (HTML, SVG, MathML, custom) as extract.js reads it. */
type PageElement = Element & MaybeField;
/** An element dispatch.js acts on: what a selector or a hit test found, a control a
 * person could click (HTML; an SVG icon inside one is reached through its button). */
type Target = HTMLElement & MaybeField;
/** What a node's getRootNode() is: a Document, a ShadowRoot, or the top of a detached
 * subtree (which has none of these). */
type TreeRoot = Node & {
  getElementById?(id: string): Element | null;
  readonly host?: Element;
  readonly defaultView?: Window | null;
  readonly documentElement?: Element | null;
};
/** Elements the page added listeners of one kind to, as page-world.js reports them. */
interface Listened {
  set: WeakSet<Element>;
  count: number;
}
/** A node walked through the flat tree: out of a shadow root to its host, into the slot
 * that shows it. */
type FlatNode = Node & { readonly assignedSlot?: HTMLSlotElement | null; readonly host?: Element };

// --- the snapshot extract.js makes (nsp_protocol::snapshot) ------------------------------

/** ElementRecord, positional: [tag, parent, where, flags, text, attrs?, label?]; extract.js
 * keeps a symbol-keyed note beside the slots, where JSON.stringify does not look. */
type ElementRecord = [string, number | null, string | number, number, string, (Record<string, string> | null)?, string?] & {
  [note: symbol]: number | undefined;
};
interface PageSnapshot {
  url: string;
  title: string;
  site_name: string | null;
  elements: ElementRecord[];
  extract_ms: number;
  unsettled: boolean;
  truncated: boolean;
  json_ld?: unknown[];
  tools?: WebMcpTool[];
  /** Added by content.js before the probe reads it. */
  [more: string]: unknown;
}
interface SnapshotSplice {
  start: number;
  delete: number;
  insert: ElementRecord[];
}
interface SnapshotPatch {
  splices: SnapshotSplice[];
  url: string;
  title: string;
  extract_ms: number;
  unsettled: boolean;
  /** Added by content.js when the page's WebMCP tools changed. */
  tools?: WebMcpTool[];
}
/** The `perceive` options (see hiddenReason in extract.js). */
interface PerceiveOptions {
  strict?: boolean;
  reveal?: "any" | "css" | "none";
  point?: { x: number; y: number } | null;
  unrendered?: boolean;
}
/** extract.js' walker over one document. */
interface NspExtractor {
  readonly doc: Document;
  clickable: WeakSet<Element>;
  clickableCount: number;
  hover: Listened;
  own: WeakSet<Node>;
  onShadowRoot: ((root: ShadowRoot) => void) | null;
  onFrame: ((frame: Element, doc: Document) => void) | null;
  /** The element records of the newest snapshot, patches applied. */
  readonly recs: readonly unknown[];
  full(): PageSnapshot;
  patch(changed: Iterable<Node>): SnapshotPatch | null;
  selectorOf(el: Element): string;
  /** Controls the last extraction or patch kept back as transparent or invisible. */
  faded(): readonly Element[];
}

/** extract.js: the page snapshot. */
declare var NspExtract: {
  Extractor: new (doc?: Document, options?: { maxRecords?: number }) => NspExtractor;
  norm(text: string | null | undefined, max: number): string;
  isSecret(el: PageElement): boolean;
  controlLabel(el: PageElement): string;
  explainLabel(el: PageElement): string;
  plainLabel(el: PageElement): string;
  labelFrom(sources: unknown[]): string;
  clip(text: string, max: number): string;
  /** "" when a person can see and reach the element, else why not. */
  perceive(el: PageElement | null, hover: Listened | null, opts: PerceiveOptions | null): string;
  shownAs(el: PageElement): Element | null;
  /** CodeMirror 5's editor of a text area; false: CodeMirror's own input beside a page's text area. */
  codeMirrorOf(el: Element): HTMLElement | null | false;
  codeMirrorInput(box: Element): HTMLTextAreaElement | null;
  codeMirrorLines(box: Element): string[];
  /** The tags and roles of regions, as the probe's page.rs lists them (tied by a test). */
  REGION_TAGS: Set<string>;
  REGION_ROLES: Set<string>;
  /** What in a paragraph the probe keys on its own, as a selector (objects.rs, tied by a test). */
  KEYED_INSIDE: string;
  /** Selectize's box standing for a select it hides, else null. */
  selectizeOf(el: Element): HTMLElement | null;
  rememberPassword(el: Node): void;
  hitAt(doc: Document, x: number, y: number): Element | null;
  within(el: Node, node: Node | null): boolean;
  /** The focused element of `doc` when it is a combobox whose popup is open. */
  openCombobox(doc: Document): HTMLElement | null;
  manyChoices(el: Element): boolean;
  manyFor(el: Element): HTMLSelectElement | null;
  withoutGlyphs(el: Element, text: string): string;
  glyphOf(el: Element): string;
  isPicker(el: Element): boolean;
  pickerValue(el: PageElement): string;
  /** The checkbox or switch that enables a disabled field, when one names it. */
  enablerOf(el: Element): HTMLElement | null;
  IDX: symbol;
};

// --- the page's own world, through page-channel.js and bridge.js -------------------------

/** A WebMCP tool the page registered, as page-world.js describes it. */
interface WebMcpTool {
  name: string;
  description: string;
  input_schema: unknown;
  [more: string]: unknown;
}
/** A dialog the page showed during an action (nsp_protocol::channel::PageDialog). */
interface PageDialog {
  kind: string;
  message: string;
  accepted: boolean;
}
/** page-channel.js: the private channel to the page-world script. */
declare var NspPageChannel: {
  onDialog(fn: ((kind: string, message: string) => { accept: boolean } | null) | null): void;
  readonly paired: boolean;
  tools(): WebMcpTool[];
  onTools(fn: (() => void) | null): void;
  clickable: Listened;
  hover: Listened;
};
/** bridge.js' bridge to the main world, as content.js and dispatch.js use it. */
interface NspPage {
  tools(): WebMcpTool[];
  clickable(): Listened;
  hover(): Listened;
  armDialogs(accept: boolean): void;
  trigger<T>(fn: () => T): T;
  disarmDialogs(): PageDialog[];
  callTool(name: string, input: unknown): Promise<unknown>;
  mark(extractor: NspExtractor): void;
  snapshot(extractor: NspExtractor): PageSnapshot;
}
/** bridge.js: the probe in the page, or its absence. */
declare var NspBridge: {
  create(on?: { toolsChanged?(): void; navigated?(): void } | null): NspPage;
};

// --- wire shapes (nsp_protocol::state and ::channel) -------------------------------------

interface ActionParameter {
  name: string;
  required?: boolean;
  secret?: boolean;
  [more: string]: unknown;
}
interface ActionSchema {
  signature: string;
  reversibility: string;
  description: string;
  confidence: number;
  internal_target: string;
  parameters?: ActionParameter[];
}
interface ExplainElement {
  tag: string;
  id?: string | null;
  selector: string;
  text: string;
}
interface ActionExplain {
  elements?: ExplainElement[];
  signals?: string[];
  tier_reason?: string;
  confidence_reason?: string;
  parameters?: Record<string, string>;
  rows?: string[][];
}
/** A page's capture (nsp_protocol::state::PageCapture), as content.js and the worker keep it. */
interface PageCapture {
  objects: Record<string, unknown>;
  actions: Record<string, ActionSchema>;
  explain?: Record<string, ActionExplain>;
  confidence?: number;
  context?: PageContext;
  probe_metadata?: ProbeMetadata;
  [more: string]: unknown;
}
/** nsp_protocol::state::Context, the parts the extension reads. */
interface PageContext {
  url?: string;
  [more: string]: unknown;
}
/** nsp_protocol::state::ProbeMetadata, the parts the extension reads. */
interface ProbeMetadata {
  probe_tier?: string | null;
  settled?: boolean;
  [more: string]: unknown;
}
/** nsp_protocol::channel::TabDelta. */
interface TabDelta {
  changed?: Record<string, unknown>;
  removed?: string[];
  actions?: Record<string, ActionSchema>;
  confidence?: number;
  context?: PageContext;
  probe_metadata?: ProbeMetadata;
  explain?: Record<string, ActionExplain>;
}
/** nsp_protocol::channel::ResolvedElement. */
interface ResolvedElement {
  tag: string;
  label: string;
  actions: string[];
  secret: boolean;
  perceivable: boolean;
}
/** nsp_protocol::channel::DispatchExpect. */
interface DispatchExpect {
  tier?: string | null;
  labels?: string[];
  row?: string[] | null;
  element?: ResolvedElement | null;
}
/** DaemonMessage::Dispatch as the content script gets it. */
interface DispatchRequest {
  action: string;
  parameters?: Record<string, unknown>;
  internal_target?: string | null;
  accept_confirm?: boolean;
  expect?: DispatchExpect | null;
  /** Set by the worker when it skipped the at-most-once claim (worker/once.js). */
  unclaimed?: boolean;
}
/** nsp_protocol::channel::DispatchOutcome. */
type DispatchOutcome =
  | { status: "done"; value: unknown; dialogs?: PageDialog[]; message?: undefined }
  | { status: "failed"; code: string; message: string };
/** nsp_protocol::channel::Resolution. */
interface Resolution {
  count: number;
  element?: ResolvedElement;
  error?: string;
}

/** dispatch.js: runs one action in the page. */
declare var NspDispatch: {
  run(
    msg: DispatchRequest,
    capture: PageCapture | null,
    page: NspPage,
    onDeclined?: (seen: { element: Element | null; target: string; text: string }) => void,
  ): Promise<DispatchOutcome>;
  resolve(path: string): Element | null;
  resolveAll(path: string, doc?: Document): Element[];
  labelOf(el: PageElement): string;
  actionable(el: Target, read: boolean): void;
  describe(selector: string, capture: PageCapture | null, hover: Listened | null): Resolution;
  still(): Promise<void>;
  Failure: new (code: string, message: string) => Error & { code: string };
  /** Its copies of the protocol's lists (tied to them by protocol/tests/extension_contract.rs). */
  contract: { builtins: string[]; failureCodes: string[]; tierRank: Record<string, number> };
};
/** delta.js: applies a capture delta to a state. */
declare var NspDelta: { apply(cap: PageCapture, delta: TabDelta): void };

interface Navigator {
  /** User-Agent Client Hints (Chromium only). */
  readonly userAgentData?: { brands: { brand: string; version: string }[] };
  /** WebMCP's tool registry, where a page declares its tools. */
  readonly modelContext?: unknown;
}
interface Document {
  /** The earlier WebMCP draft's registry on the document. */
  readonly modelContext?: unknown;
}
/** The Navigation API (Chromium; not in TypeScript's DOM library yet): content.js hears
 * a navigation start on it. */
declare var navigation: EventTarget | undefined;
/** Its `navigate` event, the part content.js reads. */
interface NavigateEvent extends Event {
  readonly destination?: { readonly sameDocument: boolean };
}
/** content.js: set once it has run in this page (it may be injected twice). */
declare var __nspContentLoaded: boolean | undefined;

interface Window {
  /** Set once page-world.js has run in this page. */
  __nspPageWorld?: boolean;
}

// --- the service worker's records (extension/worker/) ------------------------------------

/** A tab's last tab_state (ExtensionMessage::TabState), kept per tab and re-announced. */
interface TabState {
  type: "tab_state";
  tab_id: number;
  window_id?: number | null;
  status: string;
  url: string | null;
  title: string | null;
  message: string | null;
  capture: PageCapture | null;
  request_id: string | null;
}
/** nsp_protocol::approval::ApprovalQuestion, with the worker's note of its answer. */
interface ApprovalQuestion {
  approval_id: string;
  tab_id: number;
  action: string;
  tier: string;
  url?: string | null;
  origin?: string | null;
  target?: string | null;
  pid: number;
  parameters?: Record<string, unknown>;
  confidence: number;
  floor: number;
  signals?: string[];
  reason: string;
  verify_expression?: string | null;
  key_id: string;
  /** The agent that asks (`default` for agent.key's); absent from older daemons. */
  agent?: string | null;
  asked_at: string;
  expires_at: string;
  /** The person's decision, once given (kept until nspd closes the question). */
  answered?: string;
  /** Set for the popup: the parameters shown masked. */
  secret_parameters?: string[];
}
/** One of the popup's recent actions. */
interface RecentAction {
  action_id: string;
  tab_id: number;
  action: string;
  at: number;
  status: string;
  message?: string | null;
}
/** nspd's probe settings (nsp_protocol::channel::ProbeSettings), and a tab's corrections. */
interface ProbeSettings {
  max_objects?: number;
  max_list_records?: number;
  corrections?: StoredCorrection[];
}
/** A correction nspd stores (per origin and action). */
interface StoredCorrection {
  id: string;
  origin: string;
  action: string;
  tier?: string | null;
  trusted?: boolean;
  max_confidence?: number;
  created_at?: string;
  by?: string;
  key_id?: string;
}
/** What nspd sends (nsp_protocol::channel::DaemonMessage), by `type`. */
type DaemonMessage =
  | { type: "welcome"; channel_version: number; daemon_version: string; probe?: ProbeSettings | null }
  | { type: "keepalive_ack" }
  | ({ type: "dispatch"; action_id: string; tab_id: number } & DispatchRequest)
  | { type: "resolve"; request_id: string; tab_id: number; selector: string }
  | { type: "capture"; request_id: string; tab_id: number }
  | { type: "open_tab"; request_id: string; url: string; group?: TabGroup | null }
  | { type: "close_tab"; request_id: string; tab_id: number }
  | ({ type: "approval" } & ApprovalQuestion)
  | { type: "approval_closed"; approval_id: string; reason: string }
  | { type: "corrections"; corrections: StoredCorrection[] }
  | { type: "agents"; agents: AgentView[] };
/** nsp_protocol::channel::TabGroup: an agent's tab group (title = its name). */
interface TabGroup {
  title: string;
  color: string;
}
/** nsp_protocol::channel::AgentView: one agent as the popup shows it. */
interface AgentView {
  name: string;
  group: TabGroup;
  scope: string;
  owned_tabs: number[];
  shared_tabs: number[];
  last_actions: string[];
}
/** A tab the worker put in an agent's group (worker/agents.js), kept in session storage. */
interface AgentTab {
  tab_id: number;
  agent: string;
  group_id: number;
}
/** What a content script sends its worker over its runtime port (content.js). */
type TabMessage =
  | { type: "tab_state"; status: string; url?: string | null; title?: string | null; message?: string | null; capture?: PageCapture | null; request_id?: string | null }
  | ({ type: "tab_delta" } & TabDelta)
  | { type: "resolved"; request_id?: string | null; resolution?: Resolution }
  | { type: "action_result"; action_id: string; outcome: DispatchOutcome };
/** A content script's request to the worker's probe (worker/probe.js); probe_drop, when the page moved to a probe of its own, has no answer. */
type ProbeRequest =
  | { type: "probe_ping"; id: string }
  | { type: "probe_analyze"; id: string; snapshot: string }
  | { type: "probe_update"; id: string; patch: string }
  | { type: "probe_drop"; id?: undefined };
/** What the worker sends a content script (over its runtime port, or a read over the direct one). */
type WorkerToTab =
  | ({ type: "dispatch"; action_id: string } & DispatchRequest)
  | { type: "channel_offer"; token?: unknown }
  | { type: "resolve"; request_id: string; selector: string }
  | { type: "capture"; request_id: string | null }
  | { type: "probe_config"; settings?: ProbeSettings | null }
  | { type: "outline" | "outline_off"; approval_id: string; selector?: unknown }
  | ProbeReply;
/** The worker's answer to a ProbeRequest. */
interface ProbeReply {
  type: "probe_result";
  id: string;
  ok: boolean;
  result?: unknown;
  error?: string;
}
