// Bundler-style consumer (Vite, esbuild): moduleResolution "bundler".
import { type AgentMessage, buildSessionContext } from "session-tree";

const messages: AgentMessage[] = buildSessionContext(new TextEncoder().encode("")).messages;
for (const message of messages) {
  if (message.role === "branchSummary") {
    const from: unknown = message.fromId;
    void from;
  }
}
