-- Set when a sign-in finds that the account's password, accepted under an earlier rule, is refused by
-- the current one (docs/dashboard.md, "Passwords"): the dashboard then asks for another.
-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "password_change_due" BOOLEAN NOT NULL DEFAULT false;
