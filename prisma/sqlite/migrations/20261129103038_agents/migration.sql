-- CreateTable
CREATE TABLE "AgentHost" (
    "host" TEXT NOT NULL PRIMARY KEY,
    "agentVersion" TEXT NOT NULL,
    "bootId" TEXT NOT NULL,
    "intervalSeconds" REAL NOT NULL,
    "lastReportAt" DATETIME NOT NULL,
    "report" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "AgentCommand" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "host" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "segment" TEXT NOT NULL,
    "inode" TEXT NOT NULL,
    "sizeBytes" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "outcome" TEXT,
    "message" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "AgentCommand_host_state_idx" ON "AgentCommand"("host", "state");

