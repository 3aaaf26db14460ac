-- CreateTable
CREATE TABLE "Corpus" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Paper" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "corpusId" INTEGER NOT NULL,
    "externalId" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'corpus',
    "title" TEXT NOT NULL,
    "titleSearch" TEXT NOT NULL,
    "abstract" TEXT NOT NULL DEFAULT '',
    "fullText" TEXT,
    "year" INTEGER,
    "venue" TEXT,
    "authors" TEXT NOT NULL DEFAULT '[]',
    "split" TEXT,
    "facetStatus" TEXT NOT NULL DEFAULT 'none',
    "facetError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Paper_corpusId_fkey" FOREIGN KEY ("corpusId") REFERENCES "Corpus" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "FacetItem" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "paperId" INTEGER NOT NULL,
    "facet" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'import',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "FacetItem_paperId_fkey" FOREIGN KEY ("paperId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Citation" (
    "corpusId" INTEGER NOT NULL,
    "citingId" INTEGER NOT NULL,
    "citedId" INTEGER NOT NULL,

    PRIMARY KEY ("citingId", "citedId"),
    CONSTRAINT "Citation_corpusId_fkey" FOREIGN KEY ("corpusId") REFERENCES "Corpus" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Citation_citingId_fkey" FOREIGN KEY ("citingId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Citation_citedId_fkey" FOREIGN KEY ("citedId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Edge" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" INTEGER NOT NULL,
    "facet" TEXT NOT NULL,
    "sourceId" INTEGER NOT NULL,
    "targetId" INTEGER NOT NULL,
    "rank" INTEGER NOT NULL,
    "weight" REAL NOT NULL,
    "facetScore" REAL NOT NULL,
    "citationScore" REAL NOT NULL,
    CONSTRAINT "Edge_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Edge_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Edge_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Build" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "corpusId" INTEGER NOT NULL,
    "dir" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "params" TEXT NOT NULL DEFAULT '{}',
    "manifest" TEXT NOT NULL DEFAULT '{}',
    "parentId" INTEGER,
    "codeVersion" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" DATETIME,
    CONSTRAINT "Build_corpusId_fkey" FOREIGN KEY ("corpusId") REFERENCES "Corpus" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Build_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Build" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Artefact" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" INTEGER NOT NULL,
    "stage" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "meta" TEXT NOT NULL DEFAULT '{}',
    CONSTRAINT "Artefact_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Job" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "corpusId" INTEGER,
    "buildId" INTEGER,
    "stage" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "params" TEXT NOT NULL DEFAULT '{}',
    "progress" REAL NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER,
    "message" TEXT NOT NULL DEFAULT '',
    "error" TEXT,
    "result" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "workerId" TEXT,
    "heartbeat" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Job_corpusId_fkey" FOREIGN KEY ("corpusId") REFERENCES "Corpus" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Job_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "JobLog" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "jobId" INTEGER NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "level" TEXT NOT NULL DEFAULT 'info',
    "message" TEXT NOT NULL,
    CONSTRAINT "JobLog_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Extraction" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "paperId" INTEGER NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "error" TEXT,
    "promptTokens" INTEGER,
    "completionTokens" INTEGER,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Extraction_paperId_fkey" FOREIGN KEY ("paperId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ItemAudit" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "facetItemId" INTEGER NOT NULL,
    "buildId" INTEGER,
    "grounding" REAL,
    "evidence" TEXT NOT NULL DEFAULT '[]',
    "flags" TEXT NOT NULL DEFAULT '[]',
    "specificity" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ItemAudit_facetItemId_fkey" FOREIGN KEY ("facetItemId") REFERENCES "FacetItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ItemAudit_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "User" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Study" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "corpusId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "params" TEXT NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'open',
    "createdById" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Study_corpusId_fkey" FOREIGN KEY ("corpusId") REFERENCES "Corpus" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Study_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "StudyItem" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "studyId" INTEGER NOT NULL,
    "facetItemId" INTEGER NOT NULL,
    "paperId" INTEGER NOT NULL,
    "isCore" BOOLEAN NOT NULL DEFAULT false,
    "position" INTEGER NOT NULL,
    CONSTRAINT "StudyItem_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "StudyItem_facetItemId_fkey" FOREIGN KEY ("facetItemId") REFERENCES "FacetItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "StudyItem_paperId_fkey" FOREIGN KEY ("paperId") REFERENCES "Paper" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Assignment" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "studyItemId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "Assignment_studyItemId_fkey" FOREIGN KEY ("studyItemId") REFERENCES "StudyItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Assignment_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Rating" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "studyItemId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "score" INTEGER NOT NULL,
    "rationale" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Rating_studyItemId_fkey" FOREIGN KEY ("studyItemId") REFERENCES "StudyItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Rating_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Corpus_name_key" ON "Corpus"("name");

-- CreateIndex
CREATE INDEX "Paper_corpusId_role_year_idx" ON "Paper"("corpusId", "role", "year");

-- CreateIndex
CREATE INDEX "Paper_corpusId_role_venue_idx" ON "Paper"("corpusId", "role", "venue");

-- CreateIndex
CREATE INDEX "Paper_corpusId_titleSearch_idx" ON "Paper"("corpusId", "titleSearch");

-- CreateIndex
CREATE UNIQUE INDEX "Paper_corpusId_externalId_key" ON "Paper"("corpusId", "externalId");

-- CreateIndex
CREATE INDEX "FacetItem_facet_idx" ON "FacetItem"("facet");

-- CreateIndex
CREATE UNIQUE INDEX "FacetItem_paperId_facet_position_key" ON "FacetItem"("paperId", "facet", "position");

-- CreateIndex
CREATE INDEX "Citation_citedId_idx" ON "Citation"("citedId");

-- CreateIndex
CREATE INDEX "Citation_corpusId_idx" ON "Citation"("corpusId");

-- CreateIndex
CREATE INDEX "Edge_buildId_sourceId_facet_rank_idx" ON "Edge"("buildId", "sourceId", "facet", "rank");

-- CreateIndex
CREATE INDEX "Edge_buildId_targetId_facet_idx" ON "Edge"("buildId", "targetId", "facet");

-- CreateIndex
CREATE UNIQUE INDEX "Edge_buildId_facet_sourceId_targetId_key" ON "Edge"("buildId", "facet", "sourceId", "targetId");

-- CreateIndex
CREATE INDEX "Build_corpusId_status_idx" ON "Build"("corpusId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Artefact_buildId_name_key" ON "Artefact"("buildId", "name");

-- CreateIndex
CREATE INDEX "Job_status_createdAt_idx" ON "Job"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Job_corpusId_stage_idx" ON "Job"("corpusId", "stage");

-- CreateIndex
CREATE INDEX "JobLog_jobId_at_idx" ON "JobLog"("jobId", "at");

-- CreateIndex
CREATE INDEX "Extraction_paperId_createdAt_idx" ON "Extraction"("paperId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ItemAudit_facetItemId_key" ON "ItemAudit"("facetItemId");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "StudyItem_studyId_facetItemId_key" ON "StudyItem"("studyId", "facetItemId");

-- CreateIndex
CREATE INDEX "Assignment_userId_position_idx" ON "Assignment"("userId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Assignment_studyItemId_userId_key" ON "Assignment"("studyItemId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "Rating_studyItemId_userId_key" ON "Rating"("studyItemId", "userId");
