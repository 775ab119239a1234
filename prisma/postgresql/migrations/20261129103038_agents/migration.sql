-- CreateTable
CREATE TABLE "AgentHost" (
    "host" TEXT NOT NULL,
    "agentVersion" TEXT NOT NULL,
    "bootId" TEXT NOT NULL,
    "intervalSeconds" DOUBLE PRECISION NOT NULL,
    "lastReportAt" TIMESTAMP(3) NOT NULL,
    "report" TEXT NOT NULL,

    CONSTRAINT "AgentHost_pkey" PRIMARY KEY ("host")
);

-- CreateTable
CREATE TABLE "AgentCommand" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "segment" TEXT NOT NULL,
    "inode" TEXT NOT NULL,
    "sizeBytes" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "outcome" TEXT,
    "message" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "AgentCommand_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AgentCommand_host_state_idx" ON "AgentCommand"("host", "state");

