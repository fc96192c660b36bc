package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.store.EventLogStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresStoreOptionsTest {

    private static PostgresStoreOptions.Builder uri(String uri) {
        return PostgresStoreOptions.builder().uri(uri);
    }

    @Test
    void theUriFormGivesUserPasswordHostPortDatabaseAndSchema() {
        PostgresStoreOptions options = uri("postgresql://baton:s3cret@db.example:6543/app?schema=coord").build();

        assertThat(options.user()).isEqualTo("baton");
        assertThat(options.schema()).isEqualTo("coord");
        assertThat(options.target().password()).isEqualTo("s3cret");
        assertThat(options.target().jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/app");
        assertThat(options.describe()).isEqualTo("postgresql://baton@db.example:6543/app?schema=coord");
    }

    @Test
    void severalHostsGoToPgjdbcInOrderAndDefaultToThePrimary() {
        PostgresStoreOptions options = uri("postgresql://baton:s3cret@db1:5433,db2,[::1]:5435/app?schema=coord")
                .build();

        assertThat(options.target().jdbcUrl()).isEqualTo("jdbc:postgresql://db1:5433,db2:5432,[::1]:5435/app");
        assertThat(options.target().driverProperties()).containsEntry("targetServerType", "primary");
        assertThat(options.describe()).isEqualTo("postgresql://baton@db1:5433,db2:5432,[::1]:5435/app?schema=coord")
                .doesNotContain("s3cret");
        assertThat(options.toString()).doesNotContain("s3cret");
    }

    @Test
    void anExplicitTargetServerTypeIsKeptAndOneHostGetsNone() {
        PostgresStoreOptions preferred = uri("postgresql://baton@db1,db2/app?targetServerType=preferPrimary").build();
        PostgresStoreOptions single = uri("postgresql://baton@db1/app").build();

        assertThat(preferred.target().driverProperties()).containsEntry("targetServerType", "preferPrimary");
        assertThat(single.target().driverProperties()).doesNotContainKey("targetServerType");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        PostgresStoreOptions options = uri("postgres://baton@localhost/app").build();

        assertThat(options.schema()).isEqualTo("baton");
        assertThat(options.createSchema()).isTrue();
        assertThat(options.poolSize()).isEqualTo(4);
        assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.statementTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.eventRetention()).isEqualTo(10_000);
        assertThat(options.listenReconnectInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(options.applicationName()).isEqualTo("baton");
        assertThat(options.target().jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/app");
    }

    @Test
    void percentEncodedCredentialsAreDecodedAndOtherParametersGoToTheDriver() {
        PostgresStoreOptions options = uri("postgresql://us%40er:p%40ss%2Fw%3Ard@[::1]:5433/my%20db?sslmode=require")
                .build();

        assertThat(options.user()).isEqualTo("us@er");
        assertThat(options.target().password()).isEqualTo("p@ss/w:rd");
        assertThat(options.target().authority()).isEqualTo("[::1]:5433");
        assertThat(options.target().database()).isEqualTo("my db");
        assertThat(options.target().jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5433/my%20db");
        assertThat(options.target().driverProperties()).containsEntry("sslmode", "require")
                .containsEntry("user", "us@er");
    }

    @Test
    void theJdbcFormTakesCredentialsAsParametersOrFromTheBuilder() {
        PostgresStoreOptions fromParams = uri("jdbc:postgresql://127.0.0.1:5432/app?user=baton&password=pw&schema=s1")
                .build();
        PostgresStoreOptions fromBuilder = PostgresStoreOptions.builder().jdbcUrl("jdbc:postgresql://127.0.0.1/app")
                .user("baton").password("pw").build();

        assertThat(fromParams.user()).isEqualTo("baton");
        assertThat(fromParams.target().password()).isEqualTo("pw");
        assertThat(fromParams.schema()).isEqualTo("s1");
        assertThat(fromBuilder.target().password()).isEqualTo("pw");
        assertThat(fromBuilder.describe()).isEqualTo("postgresql://baton@127.0.0.1:5432/app?schema=baton");
    }

    @Test
    void theBuildersSchemaAndCredentialsOverrideTheUris() {
        PostgresStoreOptions options = uri("postgresql://a:old@h/db?schema=from_uri").schema("explicit")
                .password("new").build();

        assertThat(options.schema()).isEqualTo("explicit");
        assertThat(options.target().password()).isEqualTo("new");
        assertThat(options.toBuilder().build().schema()).isEqualTo("explicit");
    }

    @Test
    void thePasswordIsNeverShown() {
        PostgresStoreOptions options = uri("postgresql://baton:hunter2@h:5432/db").build();

        assertThat(options.describe()).doesNotContain("hunter2");
        assertThat(options.toString()).doesNotContain("hunter2");
        assertThat(options.target().toString()).doesNotContain("hunter2");
        assertThatThrownBy(() -> uri("postgresql://baton:hunter2@h:99999/db").build())
                .hasMessageContaining("port").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> uri("mysql://baton:hunter2@h/db").build())
                .hasMessageContaining("uri must start with postgresql://").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> uri("jdbc:postgresql://h?user=baton&password=hunter2").build())
                .hasMessageContaining("no database").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> uri("postgresql://baton:hun/ter2@h:1/db%zz").build())
                .hasMessageContaining("percent-escape").hasMessageNotContaining("hun/ter2");
    }

    @Test
    void validationMessagesNameTheField() {
        assertThatThrownBy(() -> PostgresStoreOptions.builder().build()).hasMessageStartingWith("uri is required");
        assertThatThrownBy(() -> uri("postgresql://h/db").build()).hasMessageStartingWith("user is required");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").jdbcUrl("jdbc:postgresql://h/db").build())
                .hasMessageContaining("either uri or jdbcUrl");
        assertThatThrownBy(() -> PostgresStoreOptions.builder().jdbcUrl("postgresql://u@h/db").build())
                .hasMessageStartingWith("jdbcUrl must start with jdbc:postgresql://");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").schema("Bad-Name").build())
                .hasMessageStartingWith("schema must be");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").poolSize(0).build()).hasMessageStartingWith("poolSize");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").connectTimeout(Duration.ofMillis(100)).build())
                .hasMessageStartingWith("connectTimeout must be at least 250 ms");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").statementTimeout(Duration.ZERO).build())
                .hasMessageStartingWith("statementTimeout must be positive");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").eventRetention(EventLogStore.MIN_RETAINED - 1).build())
                .hasMessageStartingWith("eventRetention must be at least " + EventLogStore.MIN_RETAINED);
        assertThatThrownBy(() -> uri("postgresql://u@h/db").listenReconnectInterval(null).build())
                .hasMessageStartingWith("listenReconnectInterval must be positive");
        assertThatThrownBy(() -> uri("postgresql://u@h/db").applicationName(" ").build())
                .hasMessageStartingWith("applicationName");
    }
}
