/**
 * A kind of action a tool performs, named by the verbs users and tool authors use for it.
 * `reads` actions leave the world as it was (list, get, search, count ...); the others change it.
 */
export interface ActionGroup {
  readonly name: string;
  readonly reads: boolean;
  /** Verbs (and short verb phrases) that ask for this action. A word may belong to several groups. */
  readonly verbs: readonly string[];
  /** Words that name this action only when they start a request ("comment on the issue", "label this mail"); elsewhere they are nouns. */
  readonly leadingVerbs?: readonly string[];
}

/**
 * The actions that tell a server's sibling tools apart (list_x, get_x, create_x, delete_x ...).
 * The verb decides between siblings; the object noun decides the family. Only general verbs of
 * tool vocabularies belong here, nothing server-specific.
 */
export const defaultActionGroups: readonly ActionGroup[] = [
  { name: "list", reads: true, verbs: ["list", "enumerate", "browse", "all", "every", "index"] },
  { name: "read", reads: true, verbs: ["get", "read", "fetch", "retrieve", "view", "show", "display", "see", "inspect", "describe", "open", "load", "look", "check", "detail", "info", "tell", "whoami"] },
  { name: "search", reads: true, verbs: ["search", "find", "query", "lookup", "look up", "look for", "locate", "discover", "filter"] },
  { name: "count", reads: true, verbs: ["count", "how many", "total", "tally", "stats", "statistics"] },
  { name: "generate", reads: true, verbs: ["generate", "draw", "plot", "visualize", "chart", "render"] },
  { name: "convert", reads: true, verbs: ["convert", "translate", "transform", "parse", "format"] },
  { name: "compare", reads: true, verbs: ["compare", "diff", "explain", "analyze", "analyse"] },
  { name: "validate", reads: true, verbs: ["validate", "lint", "verify", "test", "check", "audit"] },
  { name: "extract", reads: true, verbs: ["scrape", "crawl", "extract", "summarize", "summarise", "map"] },
  { name: "download", reads: true, verbs: ["download", "export", "save"] },
  { name: "create", reads: false, verbs: ["create", "add", "new", "insert", "make", "register", "set up", "setup", "provision", "init", "initialize", "build", "compose", "open", "start", "write", "draft", "post", "append", "set", "put", "generate", "draw", "plot"], leadingVerbs: ["log", "comment", "note", "schedule", "book", "label", "tag", "star", "flag"] },
  { name: "update", reads: false, verbs: ["update", "edit", "modify", "patch", "change", "alter", "amend", "set", "rename", "replace", "upsert", "adjust", "configure", "toggle", "enable", "disable", "mark", "put", "switch", "turn", "reschedule", "move", "write"], leadingVerbs: ["label", "tag", "star", "flag"] },
  { name: "delete", reads: false, verbs: ["delete", "remove", "destroy", "drop", "erase", "trash", "purge", "discard", "uninstall", "clear", "wipe", "forget", "revoke", "unlink"] },
  { name: "send", reads: false, verbs: ["send", "post", "reply", "forward", "broadcast", "notify", "dm", "push", "tell"], leadingVerbs: ["message", "email", "mail", "text", "ping"] },
  { name: "run", reads: false, verbs: ["run", "execute", "exec", "invoke", "trigger", "launch", "start", "call", "kick off", "rerun", "restart", "perform", "apply"] },
  { name: "stop", reads: false, verbs: ["stop", "cancel", "abort", "kill", "terminate", "halt", "end", "pause", "suspend", "close"] },
  { name: "move", reads: false, verbs: ["move", "transfer", "relocate", "reorder", "migrate"] },
  { name: "copy", reads: false, verbs: ["copy", "duplicate", "clone", "fork"] },
  { name: "archive", reads: false, verbs: ["archive"] },
  { name: "restore", reads: false, verbs: ["restore", "unarchive", "recover", "undelete", "reopen", "uncomplete", "undo", "revert", "rollback", "roll back"] },
  { name: "complete", reads: false, verbs: ["complete", "finish", "done", "resolve", "close"] },
  { name: "approve", reads: false, verbs: ["approve", "accept", "confirm", "sign off"] },
  { name: "reject", reads: false, verbs: ["reject", "decline", "deny", "refuse", "unapprove"] },
  { name: "assign", reads: false, verbs: ["assign", "allocate", "delegate", "unassign"] },
  { name: "upload", reads: false, verbs: ["upload", "attach", "import", "put"] },
  { name: "deploy", reads: false, verbs: ["deploy", "ship", "release", "publish", "rollout", "roll out"] },
  { name: "merge", reads: false, verbs: ["merge", "combine"] },
  { name: "share", reads: false, verbs: ["share", "invite", "grant"] },
  { name: "input", reads: false, verbs: ["type", "fill", "enter", "input", "press", "key"] },
  { name: "click", reads: false, verbs: ["click", "tap", "press", "hover", "drag", "drop", "scroll"] },
  { name: "select", reads: false, verbs: ["select", "choose", "pick"] },
  { name: "navigate", reads: false, verbs: ["navigate", "go", "visit", "open", "browse"] },
  { name: "subscribe", reads: false, verbs: ["subscribe", "unsubscribe", "watch", "follow", "unfollow"] },
];
