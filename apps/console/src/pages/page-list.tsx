// Every page of the console, in navigation order. A page is one component under src/pages.
import type { ComponentType } from "react";
import type { Session } from "../api/session.js";
import { ActivityPage } from "./activity-page.js";
import { AdminPage } from "./admin-page.js";
import { ChatPage } from "./chat/chat-page.js";
import { MemoryPage } from "./memory-page.js";
import { MarketplacesPage } from "./marketplaces-page.js";
import { PluginsPage } from "./plugins-page.js";
import { ServersPage } from "./servers-page.js";
import { SkillsPage } from "./skills-page.js";
import { ToolsPage } from "./tools-page.js";

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
