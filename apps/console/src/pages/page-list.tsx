// Every page of the console, in navigation order. A page is one component under src/pages.
import type { ComponentType } from "react";
import type { Session } from "../api/session.js";
import { PendingPage } from "./pending-page.js";

export interface PageProps {
  readonly session: Session;
}

export interface Page {
  readonly path: string;
  readonly title: string;
  readonly adminOnly?: boolean;
  readonly Component: ComponentType<PageProps>;
}

export const pages: readonly Page[] = [
  { path: "/", title: "Chat", Component: PendingPage },
  { path: "/skills", title: "Skills", Component: PendingPage },
  { path: "/plugins", title: "Plugins", Component: PendingPage },
  { path: "/servers", title: "MCP servers", Component: PendingPage },
  { path: "/tools", title: "Tools", Component: PendingPage },
  { path: "/activity", title: "Activity", Component: PendingPage },
  { path: "/memory", title: "Memory", Component: PendingPage },
  { path: "/admin", title: "Users", adminOnly: true, Component: PendingPage },
];
