/*
 * metadata_fields: the host table of metadata.json (metadata_fields.h).
 * The rows are in the order abev has always written them: the bytes of
 * metadata.json do not depend on the table being new. Every string of
 * struct host_facts is cleaned to UTF-8 by host.c before it gets here.
 */
#include "evidence/metadata_fields.h"

#include <string.h>

#include "util/compiler.h"

#define OFF(f) offsetof(struct host_facts, f)
#define REQ FIELD_REQUIRED
#define RD FIELD_READ
#define NUL FIELD_NULLABLE
/* Read back when present: evidence of older abevs may lack it. */
#define OPT FIELD_OPTIONAL
/* A count: null when unknown (or not positive), read back as -1. */
#define COUNT (FIELD_NULL_NEGATIVE | FIELD_NULL_NONPOSITIVE)

const struct field metadata_fields[] = {
	{ .key = "host", .type = FIELD_OBJECT, .flags = REQ | RD,
	  .missing = "not an abev.metadata/1 document (no host)" },
	{ .key = "host.label", .type = FIELD_OWNED, .off = OFF(label), .flags = REQ | OPT | NUL },
	{ .key = "host.hostname", .type = FIELD_OWNED, .off = OFF(hostname), .flags = REQ | RD | NUL },
	{ .key = "host.os_release", .type = FIELD_OWNED, .off = OFF(os_release), .flags = REQ | RD | NUL },
	{ .key = "host.kernel", .type = FIELD_OWNED, .off = OFF(kernel), .flags = REQ | RD | NUL },
	{ .key = "host.kernel_version", .type = FIELD_OWNED, .off = OFF(kernel_version),
	  .flags = REQ | OPT | NUL },
	{ .key = "host.arch", .type = FIELD_OWNED, .off = OFF(arch), .flags = REQ | RD | NUL },
	{ .key = "host.cpu_model", .type = FIELD_OWNED, .off = OFF(cpu_model), .flags = REQ | RD | NUL },
	{ .key = "host.logical_cpus", .type = FIELD_I64, .off = OFF(logical_cpus),
	  .flags = REQ | RD | COUNT, .min = 0, .max = INT64_MAX },
	{ .key = "host.physical_cores", .type = FIELD_I64, .off = OFF(physical_cores),
	  .flags = REQ | RD | COUNT, .min = 0, .max = INT64_MAX },
	{ .key = "host.online_cpus", .type = FIELD_OWNED, .off = OFF(online_cpus), .flags = REQ | RD | NUL },
	{ .key = "host.governor", .type = FIELD_OWNED, .off = OFF(governor), .flags = REQ | RD | NUL },
	{ .key = "host.boost", .type = FIELD_BOOL, .off = OFF(boost),
	  .flags = REQ | OPT | FIELD_NULL_NEGATIVE },
	{ .key = "host.memory_bytes", .type = FIELD_I64, .off = OFF(memory_bytes), .unit = "bytes",
	  .flags = REQ | RD | COUNT, .min = 0, .max = INT64_MAX },
	{ .key = "host.cgroup_version", .type = FIELD_OWNED, .off = OFF(cgroup_version),
	  .flags = REQ | RD | NUL },
	{ .key = "host.clock_resolution_ns", .type = FIELD_I64, .off = OFF(clock_resolution_ns),
	  .unit = "ns", .flags = REQ | OPT | COUNT, .min = 0, .max = INT64_MAX },
};
const size_t metadata_fields_count = ARRAY_SIZE(metadata_fields);

void metadata_fields_write(json_node *root, const struct host_facts *h)
{
	fields_write(root, metadata_fields, metadata_fields_count, h);
}

int metadata_fields_read(const struct json_in *rd, const json_node *root, struct host_facts *h)
{
	return fields_read(rd, root, "", metadata_fields, metadata_fields_count, h, NULL, NULL);
}

void metadata_fields_unset(struct host_facts *h)
{
	memset(h, 0, sizeof(*h));
	fields_unset(metadata_fields, metadata_fields_count, h);
}

void metadata_fields_release(struct host_facts *h)
{
	if (h)
		fields_release(metadata_fields, metadata_fields_count, h);
}

void metadata_fields_copy(struct host_facts *dst, const struct host_facts *src)
{
	fields_copy(metadata_fields, metadata_fields_count, dst, src);
}
