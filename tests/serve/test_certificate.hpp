// A self-signed certificate for 127.0.0.1 / localhost, made by the openssl command for the TLS tests of
// both front ends.
#pragma once

#include <string>

#include "test_paths.hpp"

namespace fpgacnn::serve::test_support {

struct TestCertificate {
    std::string cert;   // PEM
    std::string key;    // PEM
    std::string error;  // non-empty: openssl could not make one (the test skips with it)
};

inline TestCertificate make_test_certificate(const std::string& name) {
    const std::string dir = test::scratch_dir(name);
    TestCertificate made{dir + "/cert.pem", dir + "/key.pem", ""};
    std::string out;
    if (test::run_command("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost "
                          "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
                              made.key + " -out " + made.cert,
                          &out, &made.error) != 0) {
        if (made.error.empty()) made.error = "openssl failed";
    } else {
        made.error.clear();
    }
    return made;
}

}  // namespace fpgacnn::serve::test_support
