// Input files that are not regular files (FIFOs, devices, directories) and oversized text files:
// each is refused at once with a message naming the file and the reason, never a hang or bad_alloc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Runs `load` on another thread. If it blocks in open() on the FIFO (the bug this guards against),
// a non-blocking writer is opened so the reader wakes up and the test fails instead of hanging.
std::string error_without_hanging(const std::string& fifo, const std::function<void()>& load) {
    auto result = std::async(std::launch::async, [&] { return test::error_message(load); });
    if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
        const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (writer >= 0) ::close(writer);
        ADD_FAILURE() << "loading " << fifo << " blocked";
    }
    return result.get();
}

class InputFiles : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("input_files_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string make_fifo() {
        std::string path = dir + "/pipe";
        EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
        return path;
    }
};

TEST_F(InputFiles, AFifoAsCfgIsRefusedWithoutBlocking) {
    const std::string fifo = make_fifo();
    EXPECT_THAT(error_without_hanging(fifo, [&] { load_darknet_cfg(fifo); }),
                AllOf(HasSubstr(fifo), HasSubstr("the cfg file is not a regular file"), HasSubstr("FIFO"),
                      HasSubstr("--cfg")));
}

TEST_F(InputFiles, AFifoAsWeightsIsRefusedWithoutBlocking) {
    const std::string fifo = make_fifo();
    Network network = load_darknet_cfg(test::write_text_file(dir, "small.cfg", test::small_cfg_text()));
    EXPECT_THAT(
        error_without_hanging(fifo, [&] { load_darknet_weights(network, fifo); }),
        AllOf(HasSubstr(fifo), HasSubstr("the weights file is not a regular file"), HasSubstr("FIFO")));
}

TEST_F(InputFiles, CharacterDevicesAsCfgAreRefusedBeforeReading) {
    for (const char* device : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
        EXPECT_THAT(test::error_message([&] { load_darknet_cfg(device); }),
                    AllOf(HasSubstr(device), HasSubstr("a character device"), HasSubstr("block forever")));
    }
}

TEST_F(InputFiles, ADirectoryIsNamedAsSuch) {
    EXPECT_THAT(test::error_message([&] { load_darknet_cfg(dir); }),
                AllOf(HasSubstr(dir), HasSubstr("it is a directory")));
}

TEST_F(InputFiles, AnOversizedCfgIsRefusedWithTheCapAndWhy) {
    // 5 MiB of comments: a valid cfg syntax-wise, but no real cfg is this large.
    std::string text = test::small_cfg_text();
    text += std::string(5u << 20, '#');
    const std::string path = test::write_text_file(dir, "huge.cfg", text);
    EXPECT_THAT(test::error_message([&] { load_darknet_cfg(path); }),
                AllOf(HasSubstr(path), HasSubstr("4194304-byte limit"), HasSubstr("a few KB")));
}

}  // namespace
}  // namespace fpgacnn
