// A page shared by name: what one mapping writes the other reads, and the name goes once removed.
#include "core/sys/shared_page.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>

namespace distbench {
namespace {

TEST(SharedPage, TwoMappingsOfOneNameShareTheirBytesAndTheNameGoes) {
  SharedPage created = SharedPage::create();
  ASSERT_EQ(created.name().rfind("/distbench-", 0), 0u) << created.name();
  SharedPage opened = SharedPage::open(created.name());
  ASSERT_GE(created.bytes(), 64u);
  static_cast<char*>(created.data())[3] = 'x';
  EXPECT_EQ(static_cast<const char*>(opened.data())[3], 'x');
  EXPECT_EQ(static_cast<const char*>(opened.data())[4], 0);  // a new page reads as zeros
  const std::string name = created.name();
  created.unlink();
  EXPECT_THROW(SharedPage::open(name), Error);  // the name is gone; the mappings stay
  static_cast<char*>(opened.data())[5] = 'y';
  EXPECT_EQ(static_cast<const char*>(created.data())[5], 'y');
}

TEST(SharedPage, TheCreatorRemovesTheNameWhenItGoes) {
  std::string name;
  {
    SharedPage page = SharedPage::create();
    name = page.name();
    SharedPage moved = std::move(page);  // the moved-from page owns nothing
  }
  EXPECT_THROW(SharedPage::open(name), Error);
  EXPECT_THROW(SharedPage::open("/distbench-no-such-page"), Error);
}

}  // namespace
}  // namespace distbench
