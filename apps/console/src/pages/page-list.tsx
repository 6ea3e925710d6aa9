// Every page of the console, in navigation order. A page is one component under src/pages.
import type { ComponentType } from "react";
import type { Session } from "../api/session.js";
import { ChatPage } from "./chat/chat-page.js";
import { lazyPage } from "./lazy-page.js";
import { MarketplacesPage } from "./marketplaces-page.js";
import { PluginsPage } from "./plugins-page.js";
import { SkillsPage } from "./skills-page.js";

export interface PageProps {
  readonly session: Session;
}

export interface Page {
  readonly path: string;
  readonly title: string;
  readonly adminOnly?: boolean;
  readonly Component: ComponentType<PageProps>;
}

// The operations pages load when first opened (lazy-page.tsx): the first page (chat) ships without them.
const ServersPage = lazyPage(() => import("./servers-page.js").then((module) => module.ServersPage));
const ToolsPage = lazyPage(() => import("./tools-page.js").then((module) => module.ToolsPage));
const ActivityPage = lazyPage(() => import("./activity-page.js").then((module) => module.ActivityPage));
const MemoryPage = lazyPage(() => import("./memory-page.js").then((module) => module.MemoryPage));
const AdminPage = lazyPage(() => import("./admin-page.js").then((module) => module.AdminPage));

export const pages: readonly Page[] = [
  { path: "/", title: "Chat", Component: ChatPage },
  { path: "/skills", title: "Skills", Component: SkillsPage },
  { path: "/plugins", title: "Plugins", Component: PluginsPage },
  { path: "/marketplaces", title: "Marketplaces", Component: MarketplacesPage },
  { path: "/servers", title: "MCP servers", Component: ServersPage },
  { path: "/tools", title: "Tools", Component: ToolsPage },
  { path: "/activity", title: "Activity", Component: ActivityPage },
  { path: "/memory", title: "Memory", Component: MemoryPage },
  { path: "/admin", title: "Users", adminOnly: true, Component: AdminPage },
];
