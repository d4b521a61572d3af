-- Moves on at each password change; a browser's device cookie carries the stamp it was issued with,
-- so a change ends the cookies of every browser but the one that made it (docs/dashboard.md).
-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "device_stamp" INTEGER NOT NULL DEFAULT 0;
