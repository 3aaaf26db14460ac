-- CreateTable
CREATE TABLE "GraphShard" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "buildId" INTEGER NOT NULL,
    "plan" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "facet" TEXT NOT NULL DEFAULT '',
    "part" INTEGER NOT NULL DEFAULT 0,
    "data" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "GraphShard_buildId_fkey" FOREIGN KEY ("buildId") REFERENCES "Build" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "GraphShard_buildId_plan_kind_facet_part_key" ON "GraphShard"("buildId", "plan", "kind", "facet", "part");
