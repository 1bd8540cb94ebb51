#pragma once
/// `merlin config create`'s help, built from the table of brokers: a new kind of broker
/// changes what it says without a line here.
#include <string>

#include "merlin/core/broker/broker_provider.h"

namespace merlin::cli {

/// --broker's help: the config names of the providers that have a template, in table order,
/// joined by ", " and ", or " before the last; a broker that needs a results backend says
/// which ("redis, or rabbitmq (with a Redis as the results backend)"). Pure.
std::string config_broker_help(const BrokerProviders& providers);

/// `config create`'s help: "Write ~/.merlin/app.yaml (or -o FILE) for a Redis broker (or
/// RabbitMQ and a Redis results backend) on this machine, ...", the brokers those with a
/// template. Pure.
std::string config_create_help(const BrokerProviders& providers);

}  // namespace merlin::cli
