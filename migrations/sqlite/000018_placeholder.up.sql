-- Placeholder keeping the numbers contiguous on this branch; renumbered at merge.
SELECT 1;
