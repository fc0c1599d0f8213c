DO $$
BEGIN
    IF current_setting('server_version_num')::int < 140000 THEN
        RETURN;
    END IF;
    EXECUTE 'ALTER TABLE entries ALTER COLUMN content SET COMPRESSION DEFAULT';
    EXECUTE 'ALTER TABLE revisions ALTER COLUMN content SET COMPRESSION DEFAULT';
    EXECUTE 'ALTER TABLE proposal_changes ALTER COLUMN content SET COMPRESSION DEFAULT';
END
$$;
