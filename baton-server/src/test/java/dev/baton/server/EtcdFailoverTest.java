package dev.baton.server;

/** {@link FailoverScenario} on a private three-member etcd cluster. */
class EtcdFailoverTest extends FailoverScenario {

    @Override
    TestBackend startBackend() {
        return EtcdTestBackend.start();
    }
}
