-- This number is unused: it was kept for a migration that was not needed, so
-- that the numbers stay contiguous.
SELECT 1;
