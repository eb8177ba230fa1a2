/*
 * run_settings: the names of the run orders, as plans and result.json
 * write them (run_settings.h).
 */
#include "record/run_settings.h"

#include <string.h>

const char *const run_order_names[RUN_ORDER_COUNT] = {
	[RUN_ORDER_ALTERNATE] = "alternate",
	[RUN_ORDER_REVERSE] = "reverse",
	[RUN_ORDER_SHUFFLE] = "shuffle",
	[RUN_ORDER_BALANCED] = "balanced",
	[RUN_ORDER_SEQUENTIAL] = "sequential",
};

const char *run_order_name(enum run_order order)
{
	if ((size_t)order < RUN_ORDER_COUNT)
		return run_order_names[order];
	return "unknown";
}

int run_order_parse(const char *name, enum run_order *order)
{
	for (size_t i = 0; i < RUN_ORDER_COUNT; i++)
		if (!strcmp(name, run_order_names[i])) {
			*order = (enum run_order)i;
			return 0;
		}
	return -1;
}
