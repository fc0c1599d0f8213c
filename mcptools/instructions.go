package mcptools

// Instructions are the server instructions (clients show at most 2 KB;
// a test keeps them under).
const Instructions = `teammem is this team's shared memory: short Markdown notes the team's assistants and people wrote about the repositories they work on — decisions, conventions, gotchas, where things live, how to run and debug them. Each repository has an index, MEMORY.md (one line per topic: "- [Title](topic.md) — one-line hook"), and topic files. What holds for every repository of a namespace lives in its org memory, the repository <namespace>/.memory (acme/.memory for acme/api): list_memories and search_memories of a repository include it, marked org_memory.

When to use it: before starting a task in a repository, and whenever you need context the code does not give (why something is the way it is, a past incident, a team convention), call search_memories with a few keywords; read_memory a topic for its full text. list_memories shows a repository's topics with their descriptions.

A memory is a claim someone made at some time, not a fact: check it against the code before relying on it, and if the code says otherwise, fix the memory (write_memory with expected_checksum set to the checksum you read) or delete it (delete_memory).

To add a memory: one write_memory with the topic (key such as "testing/flaky-db.md", content starting with a frontmatter description line) and index_line ("- [Flaky DB tests](testing/flaky-db.md) — why and the fix") so MEMORY.md links it in the same write. Prefer updating an existing topic to adding a near-duplicate. Keep each topic focused and short.

Never write secrets (tokens, keys, passwords, connection strings: the write is refused), personal preferences, or anything about one person rather than the team's work. Writes are visible to everyone with access to the repository and are kept in its history (memory_history).`
