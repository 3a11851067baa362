// The bearer token both front ends of fpgacnn-serve check (--auth-token-file): REST's
// `Authorization` header and gRPC's `authorization` metadata carry "Bearer <token>".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fpgacnn::serve {

/// Nothing to check when `token` is empty. Otherwise throws ServeError(Unauthenticated) when `given`
/// (the authorization value, unset when the client sent none) is missing or is not "Bearer <token>";
/// `carrier` says where the client puts it ("header", "metadata"). The comparison takes the same time
/// wherever the texts differ, so refusals say nothing of the right token.
void check_bearer_token(const std::string& token, std::optional<std::string_view> given, const char* carrier);

}  // namespace fpgacnn::serve
