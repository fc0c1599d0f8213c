-- A placeholder keeping the numbers other branches of this round use;
-- the lead renumbers the migrations when merging.
SELECT 1;
