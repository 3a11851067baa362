#include "bearer_token.hpp"

#include "inference_core.hpp"

namespace fpgacnn::serve {

namespace {

bool same_text(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char difference = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        difference |=
            static_cast<unsigned char>(static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]));
    return difference == 0;
}

}  // namespace

void check_bearer_token(const std::string& token, std::optional<std::string_view> given,
                        const char* carrier) {
    if (token.empty()) return;
    if (!given)
        throw ServeError(ErrorKind::Unauthenticated,
                         std::string("missing 'authorization: Bearer <token>' ") + carrier);
    if (!same_text(*given, "Bearer " + token))
        throw ServeError(ErrorKind::Unauthenticated,
                         std::string("wrong bearer token in the 'authorization' ") + carrier);
}

}  // namespace fpgacnn::serve
